# torch.save(model) / torch.load of whole modules (pickled through their __dict__, as PyTorch
# does): fixtures/module.pt was written by PyTorch 1.13 (make_module_fixture.py); then a script's
# own module class saved and loaded again in memory, after a training step and eval().
import io

import torch
import torch.nn as nn

m = torch.load("fixtures/module.pt")
x = torch.linspace(-2, 2, 12).view(3, 4)
print(type(m).__name__, m.training, [type(c).__name__ for c in m], m[1].training)
print(m[1].weight.tolist(), m[1].normalized_shape, m[1].eps)
print(m(x).tolist())
print(sorted(m.state_dict().keys()))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        self.register_buffer("scale", torch.tensor([2.0]))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)
        self.tag = "net-v1"

    def forward(self, v):
        return self.body(v) * self.scale


torch.manual_seed(0)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
net(x).sum().backward()
opt.step()
net.eval()
f = io.BytesIO()
torch.save(net, f)
f.seek(0)
back = torch.load(f)
print(type(back).__name__, back.tag, back.training, back.body[0].training)
print(torch.equal(back(x), net(x)), back(x).tolist())
print(sorted(back.state_dict().keys()), sorted(k for k, _ in back.named_buffers()))
print(back.body[0].weight.grad is not None, back.body[0].weight.requires_grad)
