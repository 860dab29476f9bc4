import torch
import torch.nn as nn


def make():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(((torch.arange(p.numel(), dtype=torch.float32) * (2 + i) % 7 - 3) * 0.125).reshape(p.shape))
    return m


x = ((torch.arange(15, dtype=torch.float32) % 5 - 2) * 0.25).reshape(5, 3)
y = ((torch.arange(10, dtype=torch.float32) % 3 - 1) * 0.5).reshape(5, 2)

configs = [
    ("Adadelta", lambda p: torch.optim.Adadelta(p)),
    ("Adadelta wd", lambda p: torch.optim.Adadelta(p, lr=0.5, rho=0.8, weight_decay=0.1)),
    ("Adadelta maximize", lambda p: torch.optim.Adadelta(p, maximize=True)),
    ("RMSprop", lambda p: torch.optim.RMSprop(p, lr=0.01)),
    ("RMSprop centered momentum", lambda p: torch.optim.RMSprop(p, lr=0.01, momentum=0.9, centered=True, weight_decay=0.01)),
    ("Adagrad", lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)),
    ("Adamax", lambda p: torch.optim.Adamax(p, lr=0.02, weight_decay=0.01)),
    ("NAdam", lambda p: torch.optim.NAdam(p, lr=0.02)),
    ("RAdam", lambda p: torch.optim.RAdam(p, lr=0.02, weight_decay=0.01)),
    ("SGD nesterov", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("Adam amsgrad", lambda p: torch.optim.Adam(p, lr=0.01, amsgrad=True)),
    ("AdamW", lambda p: torch.optim.AdamW(p, lr=0.01)),
]

for name, make_opt in configs:
    m = make()
    opt = make_opt(m.parameters())
    losses = []
    for step in range(8):
        opt.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append("%.5f" % loss.item())
    print(name, " ".join(losses))
    print("  w", m[0].weight.flatten()[:6])
    sd = opt.state_dict()
    print("  state keys", sorted(sd["state"][0].keys()))
    if not name.startswith(("SGD", "Adam ", "AdamW")):
        # (Ember's SGD/Adam/AdamW carry PyTorch 2.x's group keys: differentiable, fused)
        print("  groups", sorted(k for k in sd["param_groups"][0].keys()))
print(torch.optim.Adadelta(make().parameters()))

# param groups + add_param_group
m = make()
opt = torch.optim.RMSprop([{"params": m[0].parameters()}, {"params": m[2].parameters(), "lr": 0.1}], lr=0.01)
print(len(opt.param_groups), [g["lr"] for g in opt.param_groups])
for name, bad in [("lr", lambda: torch.optim.Adadelta(make().parameters(), lr=-1)),
                  ("rho", lambda: torch.optim.Adadelta(make().parameters(), rho=1.5)),
                  ("beta", lambda: torch.optim.NAdam(make().parameters(), betas=(1.0, 0.9)))]:
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)
