# Random ops inside torch.compile regions consume the generator exactly as eager does (in the
# graph, in order, or through a graph break), so compiled code prints PyTorch's numbers.
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.compile
def noisy(x):
    a = x + torch.randn(3)
    b = a * torch.rand(3)
    c = F.dropout(b, 0.5)
    return c + torch.randint(0, 5, (3,))


@torch.compile
def fills(x):
    y = x * 2
    y.normal_()
    z = torch.zeros(4).uniform_(-1, 1)
    return y + 1, z, torch.randperm(5), torch.multinomial(torch.tensor([0.2, 0.8]), 1)


@torch.compile
def with_generator(g):
    return torch.randn(4, generator=g) + 1


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        return self.drop(self.fc(x)) * 2


torch.manual_seed(0)
x = torch.ones(3)
for i in range(3):
    print(noisy(x).tolist())
    y, z, p, m = fills(torch.ones(2, 2))
    print(y.tolist(), z.tolist(), p.tolist(), m.tolist())
g = torch.Generator().manual_seed(4)
print(with_generator(g).tolist(), with_generator(g).tolist())
torch.manual_seed(1)
net = Net()
cnet = torch.compile(net)
inp = torch.randn(2, 4)
out = cnet(inp)
out.sum().backward()
print(out.tolist(), net.fc.weight.grad.tolist())
print(torch.rand(2).tolist())
