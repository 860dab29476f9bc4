# copy.deepcopy and copy.copy of modules, Parameters and tensors: independent deep copies that keep
# types, requires_grad, buffers, plain attributes, hooks, training mode and tied weights; shallow
# copies sharing the state; the error for non-leaf tensors.
import copy
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(2, 3)
        self.dec = nn.Linear(3, 2)
        self.dec.weight = nn.Parameter(torch.ones(2, 3))
        self.tied = self.enc
        self.register_buffer("steps", torch.tensor([4.0]))
        self.note = {"k": [1, 2]}

    def forward(self, x):
        return self.dec(torch.relu(self.enc(x)))


net = Net()
calls = []
net.register_forward_hook(lambda m, i, o: calls.append(type(m).__name__))
net.eval()
with torch.no_grad():
    net.enc.weight.fill_(0.5)
dup = copy.deepcopy(net)
print(type(dup).__name__, [n for n, _ in dup.named_parameters()], [n for n, _ in dup.named_buffers()])
print("independent", dup.enc.weight is not net.enc.weight, torch.equal(dup.enc.weight, net.enc.weight))
print("types", type(dup.enc.weight).__name__, dup.enc.weight.requires_grad, type(dup.steps).__name__)
print("tied stays tied", dup.tied is dup.enc, "plain attrs copied", dup.note == net.note, dup.note is not net.note)
print("training copied", dup.training, dup.enc.training)
with torch.no_grad():
    dup.enc.weight.fill_(-1.0)
    dup.steps.add_(1)
print("original untouched", net.enc.weight[0].tolist(), net.steps.tolist(), dup.steps.tolist())
out = dup(torch.ones(1, 2))
print("hooks copied", calls)
out.sum().backward()
print("grads only in the copy", dup.enc.weight.grad is not None, net.enc.weight.grad)

shallow = copy.copy(net)
print("shallow shares", shallow.enc is net.enc, shallow._parameters is net._parameters, shallow.steps is net.steps)

p = nn.Parameter(torch.tensor([1.0, 2.0]))
q = copy.deepcopy(p)
print("parameter", type(q).__name__, q.requires_grad, q.tolist(), q is not p)
t = torch.tensor([3.0], requires_grad=True)
(t * 2).sum().backward()
u = copy.deepcopy(t)
print("tensor", u.requires_grad, u.grad.tolist(), u.grad is not t.grad)
try:
    copy.deepcopy(t * 2)
except RuntimeError as e:
    print("RuntimeError", e)
