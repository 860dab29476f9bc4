# The single-process reference of examples/ddp/train_fsdp.py: the same model, data and optimizer
# on the whole batches, without FSDP; its output, recorded from PyTorch, is what the FSDP example
# must print under both launchers.
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(nn.functional.gelu(self.up(self.norm(x))))


class Net(nn.Module):
    def __init__(self, width=32, depth=4):
        super().__init__()
        self.inp = nn.Linear(10, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        self.out = nn.Linear(width, 3)

    def forward(self, x):
        h = self.inp(x)
        for b in self.blocks:
            h = b(h)
        return self.out(h)


n = 64
x = torch.sin(torch.arange(n * 10).float().reshape(n, 10) * 0.37)
y = torch.stack([x[:, :4].sum(1), (x[:, 3:7] * 2).sum(1).tanh(), x[:, 8] - x[:, 9]], dim=1)
model = Net()
with torch.no_grad():     # the same starting point everywhere (Ember's generator is not PyTorch's)
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.cos(torch.arange(p.numel()).float() * 0.7 + i).reshape(p.shape) * 0.2)
opt = torch.optim.AdamW(model.parameters(), lr=0.003)

global_batch = 16
for epoch in range(4):
    total = torch.zeros(1)
    for start in range(0, n, global_batch):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x[start:start + global_batch]), y[start:start + global_batch])
        loss.backward()
        opt.step()
        total += loss.detach()
    print("epoch %d  loss %.4f" % (epoch, total.item() / (n // global_batch)))
state = model.state_dict()
print("full state dict:", len(state), "tensors,", sum(v.numel() for v in state.values()), "parameters")
