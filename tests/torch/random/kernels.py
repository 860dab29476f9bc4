# bernoulli (tensor p, scalar p, in place), dropout masks (F.dropout, nn.Dropout), multinomial
# with and without replacement, exponential_, random_, torch.normal's forms: each consumes the
# generator as PyTorch's CPU kernels do, so a seeded run prints PyTorch's numbers.
import torch
import torch.nn as nn
import torch.nn.functional as F


def kernels():
    p = torch.rand(3, 5)
    print(torch.bernoulli(p).tolist())
    print(torch.bernoulli(torch.zeros(2, 4), 0.3).tolist())
    print(torch.zeros(6).bernoulli_(0.7).tolist())
    print(torch.zeros(2, 6).bernoulli_(torch.tensor([0.1, 0.9, 0.5, 0.5, 0.2, 0.8])).tolist())
    print(torch.zeros(5, dtype=torch.long).bernoulli_(0.5).tolist())
    x = torch.ones(4, 5)
    print(F.dropout(x, 0.3).tolist())
    print(F.dropout(x, 0.5, training=True).tolist())
    print(F.dropout(x, 1.0).tolist(), F.dropout(x, 0.0).sum().item(), F.dropout(x, 0.5, training=False).sum().item())
    d = nn.Dropout(0.25)
    print(d(torch.arange(12.0).reshape(3, 4)).tolist())
    d.eval()
    print(d(torch.arange(4.0)).tolist())
    w = torch.ones(3, 4, requires_grad=True)
    y = F.dropout(w, 0.4)
    y.sum().backward()
    print(y.tolist(), w.grad.tolist())
    probs = torch.tensor([0.1, 0.2, 0.3, 0.4])
    print(torch.multinomial(probs, 2).tolist(), torch.multinomial(probs, 1).tolist(), probs.multinomial(4).tolist())
    print(torch.multinomial(torch.tensor([[0.1, 0.2, 0.3, 0.4], [1.0, 0.0, 2.0, 3.0]]), 3).tolist())
    print(torch.multinomial(probs, 10, replacement=True).tolist())
    print(torch.multinomial(torch.tensor([[1.0, 2.0, 0.5], [0.0, 3.0, 1.0]]), 5, True).tolist())
    print(torch.multinomial(torch.softmax(torch.randn(50), 0), 20).tolist())
    print(torch.zeros(5).exponential_().tolist())
    print(torch.zeros(5).exponential_(2.5).tolist())
    print(torch.zeros(4, dtype=torch.long).random_().tolist())
    print(torch.zeros(4, dtype=torch.long).random_(10).tolist())
    print(torch.zeros(4, dtype=torch.long).random_(-3, 3).tolist())
    print(torch.zeros(4).random_(0, 100).tolist())
    print(torch.zeros(4).random_().tolist())
    print(torch.normal(torch.zeros(3), torch.ones(3) * 2).tolist())
    print(torch.normal(2.0, 3.0, size=(4,)).tolist())
    print(torch.normal(torch.arange(4.0), 0.5).tolist())
    print(torch.normal(1.0, torch.arange(1.0, 4.0)).tolist())


for seed in [0, 3, 99]:
    torch.manual_seed(seed)
    kernels()

g = torch.Generator().manual_seed(17)
print(torch.bernoulli(torch.full((6,), 0.5), generator=g).tolist())
print(torch.multinomial(torch.tensor([1.0, 1.0, 1.0]), 2, generator=g).tolist())
print(torch.zeros(3).exponential_(generator=g).tolist(), torch.zeros(3).random_(0, 5, generator=g).tolist())


def error(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__ + ":", e)


error(lambda: torch.zeros(2).exponential_(-1.0))
error(lambda: torch.multinomial(torch.tensor([1.0, -1.0]), 1))
error(lambda: torch.multinomial(torch.tensor([1.0, 2.0]), 3))
error(lambda: torch.multinomial(torch.tensor([1.0, -1.0]), 2, True))
error(lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 2, True))
error(lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1))
error(lambda: torch.multinomial(torch.tensor([1, 2]), 1))
error(lambda: torch.multinomial(torch.tensor([1.0, 2.0]), 0))
error(lambda: torch.zeros(2).bernoulli_(1.5))
error(lambda: torch.bernoulli(torch.tensor([1.5])))
error(lambda: torch.randperm(-1))
error(lambda: torch.zeros(2).random_(5, 2))
error(lambda: torch.zeros(2).uniform_(3, 1))
error(lambda: torch.zeros(2).normal_(0, -1))
error(lambda: F.dropout(torch.ones(2), 1.5))
