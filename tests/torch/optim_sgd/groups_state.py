# Optimizer param_groups (per-group hyper-parameters, add_param_group, defaults), zero_grad
# (set_to_none True / False), state_dict and load_state_dict round trip, and input errors.
import torch
import torch.nn as nn


def r(t):
    return [round(v, 4) for v in t.detach().reshape(-1).tolist()]


model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (i + 1))
opt = torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.5}],
                      lr=0.1, momentum=0.9)
print("groups", len(opt.param_groups), [g["lr"] for g in opt.param_groups], [g["momentum"] for g in opt.param_groups],
      [len(g["params"]) for g in opt.param_groups])
print("defaults", opt.defaults["lr"], opt.defaults["momentum"], opt.defaults["nesterov"])
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5]])
y = torch.tensor([[1.0], [0.0]])
for step in range(2):
    opt.zero_grad(set_to_none=True)
    loss = nn.MSELoss()(model(x), y)
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
for name, p in model.named_parameters():
    print(name, r(p))

sd = opt.state_dict()
print("state keys", sorted(sd.keys()), sorted(sd["state"].keys()))
print("group params", [g["params"] for g in sd["param_groups"]], [g["lr"] for g in sd["param_groups"]])
print("buffer", r(sd["state"][2]["momentum_buffer"]))

model2 = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
model2.load_state_dict(model.state_dict())
opt2 = torch.optim.SGD([{"params": model2[0].parameters()}, {"params": model2[2].parameters(), "lr": 0.5}],
                       lr=0.1, momentum=0.9)
opt2.load_state_dict(sd)
print("loaded lr", [g["lr"] for g in opt2.param_groups], len(opt2.state))
for o, m in ((opt, model), (opt2, model2)):
    o.zero_grad()
    nn.MSELoss()(m(x), y).backward()
    o.step()
print("same after one more step", all(torch.equal(p, q) for p, q in zip(model.parameters(), model2.parameters())))

p = nn.Parameter(torch.ones(2))
o = torch.optim.SGD([p], lr=0.1)
extra = nn.Parameter(torch.zeros(1))
o.add_param_group({"params": extra, "lr": 0.01})
print("add_param_group", len(o.param_groups), o.param_groups[1]["lr"], o.param_groups[1]["momentum"])
(p.sum() * 2).backward()
o.zero_grad(set_to_none=False)
print("zero_grad(False)", p.grad.tolist())
o.zero_grad(set_to_none=True)
print("zero_grad(True)", p.grad)

for bad in (lambda: torch.optim.SGD([], lr=0.1),
            lambda: torch.optim.SGD(p, lr=0.1),
            lambda: torch.optim.SGD([p * 2], lr=0.1),
            lambda: o.add_param_group({"params": [p]}),
            lambda: torch.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1),
            lambda: opt2.load_state_dict({"state": {}, "param_groups": [sd["param_groups"][0]]})):
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
