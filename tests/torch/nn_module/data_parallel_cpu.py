# nn.DataParallel without an accelerator, as scripts use it unguarded: the module is kept and
# called, the state dict carries the "module." prefix (checkpoints saved from DataParallel models
# load back through it), device_ids is empty; data_parallel fails as PyTorch 1.13's does.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 3), nn.ReLU())
dp = nn.DataParallel(net)
print(dp)
print(list(dp.state_dict().keys()), dp.device_ids, dp.module is net)
x = torch.randn(2, 4)
print(torch.equal(dp(x), net(x)), dp(x).shape)
loss = dp(x).sum()
loss.backward()
print([p.grad is not None for p in dp.parameters()])
fresh = nn.DataParallel(nn.Sequential(nn.Linear(4, 3), nn.ReLU()))
fresh.load_state_dict(dp.state_dict())
print(torch.equal(fresh(x), dp(x)))
print(isinstance(dp, nn.Module))
try:
    nn.parallel.data_parallel(net, x)
except TypeError as e:
    print("TypeError", e)
print(type(nn.parallel.DataParallel(net)).__name__)
