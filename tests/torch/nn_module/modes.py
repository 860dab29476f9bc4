# train / eval / training flags (recursive), zero_grad(set_to_none), apply, requires_grad_,
# and module-level conversion no-ops.
import torch
import torch.nn as nn


def flags(m):
    return [mod.training for mod in m.modules()]


net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(0.5), nn.ReLU()))
print("initial", flags(net))
print("eval returns self", net.eval() is net, flags(net))
print("train returns self", net.train() is net, flags(net))
net.train(False)
print("train(False)", flags(net))
net[1].train()
print("inner train", flags(net))
net.training = True
print("set attribute", flags(net))
try:
    net.train("yes")
except ValueError as e:
    print("ValueError", e)

lin = nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.fill_(1.0)
    lin.bias.fill_(0.5)
lin(torch.tensor([[1.0, 2.0]])).sum().backward()
print("grads", lin.weight.grad.tolist(), lin.bias.grad.tolist())
lin.zero_grad(set_to_none=False)
print("zero_grad(False)", lin.weight.grad.tolist(), lin.bias.grad.tolist())
lin.zero_grad(set_to_none=True)
print("zero_grad(True)", lin.weight.grad, lin.bias.grad)
lin(torch.tensor([[1.0, 2.0]])).sum().backward()
lin.zero_grad(set_to_none=True)
print("zero_grad(set_to_none=True)", lin.weight.grad)

seen = []


def init_fn(m):
    seen.append(type(m).__name__)
    if isinstance(m, nn.Linear):
        with torch.no_grad():
            m.weight.fill_(0.25)


net2 = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1), nn.Tanh()))
print("apply returns self", net2.apply(init_fn) is net2)
print("apply order", seen)
print("applied", net2[0].weight.tolist(), net2[1][0].weight.tolist())

print("requires_grad_ returns self", net2.requires_grad_(False) is net2)
print("frozen", [p.requires_grad for p in net2.parameters()])
net2.requires_grad_()
print("unfrozen", [p.requires_grad for p in net2.parameters()])
print("conversions", net2.float() is net2, net2.cpu() is net2, net2.to(torch.float32) is net2)
