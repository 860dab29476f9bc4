# tanh's and silu's gradients have PyTorch's bits in float32: ATen's FMA-built kernels round
# tanh_backward's 1 - y*y and silu_backward's 1 + x*(1 - s) once.  A makemore-style character
# MLP (embedding, tanh hidden layer, cross_entropy, SGD) and a SiLU MLP print PyTorch 1.13's
# losses to the last digit.
import hashlib
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
H = lambda t: hashlib.sha1(' '.join(v.hex() for v in t.double().flatten().tolist()).encode()).hexdigest()[:12]


def grads(f, x, g):
    x = x.detach().requires_grad_(True)
    y = f(x)
    y.backward(g)
    return y, x.grad


for name, f in (("tanh", torch.tanh), ("silu", F.silu), ("Tanh", nn.Tanh()), ("SiLU", nn.SiLU())):
    # (silu's forward and backward run libm's exp on a loop's tail and on strided input in
    # PyTorch, Sleef's here: tests/trace/footguns; so silu is checked on contiguous runs)
    for n in ((7, 16, 1000, 4099) if name.lower() == "tanh" else (16, 1000, 4099)):
        x = torch.randn(n) * 3
        g = torch.randn(n)
        y, gx = grads(f, x, g)
        print(name, n, H(y), H(gx))
# a strided gradient
x = torch.randn(64, 33) * 2
g = torch.randn(33, 64)
y, gx = grads(lambda t: torch.tanh(t).t(), x, g)
print("tanh 2d", H(y), H(gx))


class CharMLP(nn.Module):
    """makemore part 2: context of 3 characters, 10-d embeddings, 200 tanh units"""
    def __init__(self, vocab=27, block=3, emb=10, hidden=200):
        super().__init__()
        self.C = nn.Embedding(vocab, emb)
        self.l1 = nn.Linear(block * emb, hidden)
        self.l2 = nn.Linear(hidden, vocab)

    def forward(self, X):
        h = torch.tanh(self.l1(self.C(X).view(X.shape[0], -1)))
        return self.l2(h)


def train(model, X, Y, steps, lr):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for i in range(steps):
        loss = F.cross_entropy(model(X), Y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(i, loss.item())


X = torch.randint(0, 27, (128, 3))
Y = torch.randint(0, 27, (128,))
train(CharMLP(), X, Y, 8, 0.1)
silu_mlp = nn.Sequential(nn.Linear(20, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 5))
train(silu_mlp, torch.randn(96, 20), torch.randint(0, 5, (96,)), 8, 0.05)
