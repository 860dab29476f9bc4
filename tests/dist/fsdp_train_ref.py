# The single-process reference of fsdp_train.py: the same model, data and optimizer on the whole
# batch, printed in the same form for each of fsdp_train.py's configurations.
import torch
import torch.nn as nn


def fill_(model):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            n = p.numel()
            p.copy_((((torch.arange(n) * 37 + 11 * i) % 17) - 8).float().reshape(p.shape) / 24.0)


def make():
    blocks = [nn.Sequential(nn.Linear(8, 8), nn.Tanh()) for _ in range(4)]
    return nn.Sequential(*blocks, nn.Linear(8, 2))


B = 8
X = (((torch.arange(B * 8) * 13) % 11) - 5).float().reshape(B, 8) / 5.0
Y = (((torch.arange(B * 2) * 5) % 7) - 3).float().reshape(B, 2) / 3.0
for name in ["FULL_SHARD, every Linear", "SHARD_GRAD_OP, by size", "NO_SHARD", "FULL_SHARD, wrapped by hand"]:
    model = make()
    fill_(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for step in range(3):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), Y)
        loss.backward()
        opt.step()
        losses.append("%.5f" % loss.item())
    sd = model.state_dict()
    print(name)
    print("  losses", losses)
    for k in sorted(sd):
        print("  ", k, ["%.5f" % v for v in sd[k].reshape(-1)[:4].tolist()])
