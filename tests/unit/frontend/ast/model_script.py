import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed._tools.mod_tracker import ModTracker


class Net(nn.Module):
    def __init__(self, d_in: int = 4, d_out: int = 2):
        super().__init__()
        self.fc1 = nn.Linear(d_in, 8)
        self.fc2 = nn.Linear(8, d_out)
        self.register_buffer("scale", torch.ones(d_out))

    def forward(self, x):
        h = F.relu(self.fc1(x))
        return self.fc2(h) * self.scale


def train(model, data, epochs=3, lr=0.1):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for epoch in range(epochs):
        total = 0.0
        for x, y in data:
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch}: loss={total / len(data):.4f}")
    return model


@torch.compile
def fn(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a * b + x[:, 0].sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Net()
    data = [(torch.randn(3, 4), torch.randn(3, 2)) for _ in range(5)]
    with ModTracker() as tracker, torch.no_grad():
        out = model(data[0][0])
    hooks = {name: p.register_hook(lambda g, n=name: print(n, g.shape)) for name, p in model.named_parameters()}
    train(model, data)
