# nn activations constructed with inplace=True modify their input, as PyTorch's do; RReLU draws
# its slopes from the default generator in training and uses the mean slope in evaluation
import torch
import torch.nn as nn

torch.manual_seed(0)
for cls in (nn.LeakyReLU, nn.SiLU, nn.ReLU, nn.ELU, nn.Hardtanh):
    x = torch.randn(2, 4)
    y = cls(inplace=True)(x)
    print(cls.__name__, y is x, x)

m = nn.RReLU(0.1, 0.3)
print(m)
print(nn.RReLU(inplace=True))
x = torch.randn(3, 5)
print(m(x))
m.eval()
print(m(x))
m.train()
x = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
y = m(x)
print(y, y.grad_fn.name())
y.backward(torch.ones_like(y))
print(x.grad)
g = torch.Generator().manual_seed(7)
print(torch.rrelu(torch.randn(6), 0.2, 0.4, True, g))
x = torch.randn(8)
print(torch.rrelu_(x, training=True), x)
try:
    nn.functional.rrelu(torch.randn(3), 0.5, 0.2, training=True)
except Exception as e:
    print(type(e).__name__, e)
seq = nn.Sequential(nn.Linear(4, 4), nn.RReLU(), nn.Linear(4, 2))
out = seq(torch.randn(3, 4))
out.sum().backward()
print(out, seq[0].weight.grad)
