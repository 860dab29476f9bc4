# torch.optim.Rprop and ASGD as PyTorch 1.13 runs them (single-tensor updates): a float32 net
# trained a few steps with each (maximize, weight_decay, t0 small enough that averaging starts),
# parameters and state as hex floats, state_dict layout, and the argument errors.
import torch
import torch.nn as nn


def hexes(t):
    return [float(v).hex() for v in t.detach().reshape(-1)[:5]]


torch.manual_seed(0)
x = torch.randn(16, 4)
y = torch.randn(16, 2)
configs = [(torch.optim.Rprop, {}), (torch.optim.Rprop, {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}),
           (torch.optim.Rprop, {"maximize": True}),
           (torch.optim.ASGD, {}), (torch.optim.ASGD, {"lr": 0.1, "t0": 2, "lambd": 1e-3, "weight_decay": 0.01}),
           (torch.optim.ASGD, {"lr": 0.05, "t0": 0, "maximize": True})]
for cls, kw in configs:
    torch.manual_seed(1)
    net = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
    opt = cls(net.parameters(), **kw)
    for _ in range(6):
        opt.zero_grad()
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    st = opt.state[net[0].weight]
    print(cls.__name__, kw, float(loss).hex(), hexes(net[0].weight), hexes(net[2].bias))
    print("  state", sorted(st), [hexes(v) if torch.is_tensor(v) and v.dim() else (float(v).hex() if torch.is_tensor(v) else v)
                                 for k, v in sorted(st.items())][:3])
    sd = opt.state_dict()
    print("  ", sorted(sd["param_groups"][0]), len(sd["state"]))
for bad in (lambda: torch.optim.Rprop([torch.zeros(1, requires_grad=True)], lr=-1),
            lambda: torch.optim.Rprop([torch.zeros(1, requires_grad=True)], etas=(1.5, 1.2)),
            lambda: torch.optim.ASGD([torch.zeros(1, requires_grad=True)], lr=-0.1),
            lambda: torch.optim.ASGD([torch.zeros(1, requires_grad=True)], weight_decay=-1)):
    try:
        bad()
    except ValueError as e:
        print("ValueError", e)
