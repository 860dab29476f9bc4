# Lazy modules (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*): uninitialized
# parameters until the first forward, then the seeded init of the module they become; state-dict
# loading materializes them; all were missing
import warnings
import torch, torch.nn as nn
warnings.simplefilter("ignore")
torch.manual_seed(0)
m = nn.LazyLinear(3)
print(m, m.weight, type(m.weight).__name__, m.has_uninitialized_params())
try:
    m.weight.shape
except RuntimeError as e:
    print("RuntimeError:", e)
y = m(torch.randn(2, 5))
print(type(m).__name__, m, m.weight, m.bias, y)
net = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2))
print(net)
out = net(torch.randn(2, 3, 5, 5))
print(net, out)
print([(n, tuple(p.shape)) for n, p in net.named_parameters()], [(n, tuple(b.shape)) for n, b in net.named_buffers()])
out.sum().backward()
print(net[0].weight.grad.sum(), net[4].bias.grad)
sd = net.state_dict()
fresh = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.LazyBatchNorm2d(), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2))
fresh.load_state_dict(sd)
print(fresh[0].weight.shape, type(fresh[0]).__name__, torch.equal(fresh(torch.ones(1, 3, 5, 5)), net(torch.ones(1, 3, 5, 5))))
c1 = nn.LazyConv1d(2, 2); print(c1(torch.randn(3, 4, 6)).shape, c1)
ct = nn.LazyConvTranspose2d(2, 3, stride=2); print(ct(torch.randn(1, 3, 2, 2)).shape, ct)
ct1 = nn.LazyConvTranspose1d(2, 3); print(ct1(torch.randn(1, 3, 4)).shape)
inn = nn.LazyInstanceNorm1d(affine=True, track_running_stats=True); print(inn, inn(torch.randn(2, 3, 5)).shape, inn)
bn = nn.LazyBatchNorm1d(); print(bn(torch.randn(4, 6)).shape, bn.running_mean)
try:
    nn.LazyConv2d(2, 3)(torch.randn(3, 5))
except RuntimeError as e:
    print("RuntimeError:", e)
ll = nn.LazyLinear(4, bias=False, dtype=torch.float64); ll(torch.randn(1, 2, dtype=torch.float64)); print(ll.weight.dtype, ll)
print(nn.parameter.is_lazy(nn.UninitializedParameter()), nn.UninitializedBuffer())
