# torch.optim.LBFGS as PyTorch 1.13 runs it: the Rosenbrock function and a small regression
# net, with and without the strong-Wolfe line search, a short history, several steps; every
# loss and the final parameters printed as hex floats (the same steps to the last bit), the
# optimizer's state, and its errors.
import torch
import torch.nn as nn


def hexes(t):
    return [float(v).hex() for v in t.detach().reshape(-1)[:6]]


def rosenbrock(xy):
    x, y = xy[0], xy[1]
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


for kwargs in ({}, {"line_search_fn": "strong_wolfe"}, {"history_size": 3, "max_iter": 7, "lr": 0.5}):
    xy = torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([xy], **kwargs)
    losses = []

    def closure():
        opt.zero_grad()
        loss = rosenbrock(xy)
        loss.backward()
        losses.append(loss.item())
        return loss

    for _ in range(4):
        opt.step(closure)
    st = opt.state[xy]
    print(kwargs, len(losses), [v.hex() for v in losses[-3:]], hexes(xy))
    print(" state", st["func_evals"], st["n_iter"], len(st["old_dirs"]), float(st["t"]).hex())

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
x = torch.randn(32, 3)
y = (x[:, :1] * 2 - x[:, 1:2]).sin()
for search in (None, "strong_wolfe"):
    torch.manual_seed(1)
    for p in net.parameters():
        nn.init.normal_(p, std=0.5)
    opt = torch.optim.LBFGS(net.parameters(), lr=1, max_iter=10, history_size=5, line_search_fn=search)

    def closure():
        opt.zero_grad()
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        return loss

    seen = [float(opt.step(closure)).hex() for _ in range(3)]
    print(search, seen, hexes(net[0].weight), hexes(net[2].bias))

for bad in (lambda: torch.optim.LBFGS([{"params": [torch.zeros(1, requires_grad=True)]},
                                       {"params": [torch.zeros(1, requires_grad=True)]}]),
            lambda: torch.optim.LBFGS([torch.zeros(1, requires_grad=True)], line_search_fn="armijo").step(
                lambda: torch.ones(1, requires_grad=True).sum())):
    try:
        bad()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
