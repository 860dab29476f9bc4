"""Train a small MLP on a synthetic task: points in the square [-1, 1]^2 labelled by which of three
regions they fall in (inside a circle, above it, below it).  nn.Module, nn.Sequential, Linear, ReLU,
CrossEntropyLoss and torch.optim.Adam, with a progress line per epoch and the final accuracy.
Runs unchanged under CPython + PyTorch."""
import torch
import torch.nn as nn

torch.manual_seed(0)


def make_data(n):
    x = torch.rand(n, 2) * 2 - 1
    r2 = (x * x).sum(dim=1)
    inside = r2 < 0.36
    above = x[:, 1] > 0
    y = torch.where(inside, torch.zeros(n, dtype=torch.long),
                    torch.where(above, torch.ones(n, dtype=torch.long), torch.full((n,), 2, dtype=torch.long)))
    return x, y


class MLP(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, 3),
        )

    def forward(self, x):
        return self.net(x)


def accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(dim=1) == y).float().mean().item()


x_train, y_train = make_data(2000)
x_test, y_test = make_data(500)
model = MLP()
print(model)
print("parameters:", sum(p.numel() for p in model.parameters()))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
batch = 100
epochs = 15
for epoch in range(epochs):
    model.train()
    total = 0.0
    for i in range(0, x_train.shape[0], batch):
        xb, yb = x_train[i:i + batch], y_train[i:i + batch]
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * xb.shape[0]
    model.eval()
    print(f"epoch {epoch + 1:2d}/{epochs}  loss {total / x_train.shape[0]:.4f}  "
          f"train acc {accuracy(model, x_train, y_train):.3f}  test acc {accuracy(model, x_test, y_test):.3f}")
print(f"final test accuracy: {accuracy(model, x_test, y_test) * 100:.1f}%")
