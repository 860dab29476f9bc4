# Adam and AdamW: the update (bias corrections, eps), weight decay (L2 for Adam, decoupled for
# AdamW), amsgrad, maximize, betas, state (step, exp_avg, exp_avg_sq), errors.
import torch
import torch.nn as nn


def r(t):
    return [round(v, 4) for v in t.detach().reshape(-1).tolist()]


def run(label, cls, steps=4, **kw):
    w = nn.Parameter(torch.tensor([[1.0, -2.0], [0.5, 3.0]]))
    opt = cls([w], **kw)
    for i in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = ((w @ torch.tensor([1.0, -1.0]) - torch.tensor([0.5, 2.0])) ** 2).sum() + (w ** 3).sum() * 0.1
        loss.backward()
        opt.step()
    print(label, r(w))
    return opt, w


opt, w = run("adam", torch.optim.Adam, lr=0.1)
st = opt.state[w]
print("  state", sorted(st.keys()), st["step"].item(), r(st["exp_avg"]), r(st["exp_avg_sq"]))
run("adam betas", torch.optim.Adam, lr=0.05, betas=(0.5, 0.9))
run("adam eps", torch.optim.Adam, lr=0.1, eps=0.1)
run("adam weight_decay", torch.optim.Adam, lr=0.1, weight_decay=0.5)
opt, w = run("adam amsgrad", torch.optim.Adam, lr=0.1, amsgrad=True, steps=6)
print("  max_exp_avg_sq", r(opt.state[w]["max_exp_avg_sq"]))
run("adam maximize", torch.optim.Adam, lr=0.01, maximize=True)
run("adamw", torch.optim.AdamW, lr=0.1)
run("adamw weight_decay", torch.optim.AdamW, lr=0.1, weight_decay=0.5)
run("adamw amsgrad", torch.optim.AdamW, lr=0.05, amsgrad=True, weight_decay=0.1, steps=6)
print("adamw default weight_decay", torch.optim.AdamW([w]).defaults["weight_decay"])

model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.1, -0.2, 0.3]]))
    model.bias.fill_(0.0)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0], [2.0, 0.0, 1.0]])
y = torch.tensor([[1.0], [0.0], [2.0]])
for i in range(5):
    opt.zero_grad(set_to_none=True)
    loss = nn.MSELoss()(model(x), y)
    loss.backward()
    opt.step()
    print("step", i, round(loss.item(), 4))
print("weight", r(model.weight), "bias", r(model.bias))
sd = opt.state_dict()
print("state_dict steps", [s["step"].item() for s in sd["state"].values()], sd["param_groups"][0]["betas"])

for kw in (dict(lr=-0.1), dict(eps=-1.0), dict(betas=(1.0, 0.9)), dict(betas=(0.9, -0.1)), dict(weight_decay=-1.0)):
    try:
        torch.optim.Adam([w], **kw)
    except ValueError as e:
        print("ValueError", e)
