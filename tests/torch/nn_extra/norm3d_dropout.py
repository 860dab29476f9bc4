# BatchNorm3d, InstanceNorm3d, Dropout3d / F.dropout3d, FeatureAlphaDropout / F.feature_alpha_dropout
import torch
import torch.nn as nn
import torch.nn.functional as F
import warnings

torch.manual_seed(0)
vol = torch.randn(2, 3, 2, 3, 4, dtype=torch.float64)

bn = nn.BatchNorm3d(3).double()
print(bn)
a = vol.clone().requires_grad_(True)
y = bn(a)
(y * torch.arange(y.numel(), dtype=torch.float64).reshape(y.shape)).sum().backward()
print(y[1, 2, 1, 0], a.grad[0, 1, 0], bn.weight.grad, bn.running_mean, bn.running_var, bn.num_batches_tracked)
bn.eval()
print(bn(vol)[0, 0, 1, 2])
for m in [nn.InstanceNorm3d(3), nn.InstanceNorm3d(3, affine=True).double(),
          nn.InstanceNorm3d(3, track_running_stats=True).double()]:
    a = vol.clone().requires_grad_(True)
    y = m(a)
    (y * torch.arange(y.numel(), dtype=torch.float64).reshape(y.shape)).sum().backward()
    print(m, y[0, 1, 1, 2], a.grad[1, 2, 0, 1])
print(nn.InstanceNorm3d(3)(vol[0])[2, 1, 1])
for bad in [lambda: nn.BatchNorm3d(3)(vol[0]), lambda: nn.InstanceNorm3d(3)(vol[0, 0, 0])]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", e)

x = torch.ones(2, 4, 2, 2, 2)
for m in [nn.Dropout3d(), nn.Dropout3d(0.25, inplace=True), nn.FeatureAlphaDropout(0.2), nn.FeatureAlphaDropout()]:
    print(m)
    m.eval()
    print(torch.equal(m(x), x))
print(F.dropout3d(x, 0.0).sum(), F.dropout3d(x, 1.0).sum(), F.dropout3d(x[0], 1.0).shape)
print(F.feature_alpha_dropout(x, 1.0, training=True).sum(), F.feature_alpha_dropout(x, 0.5).sum())
torch.manual_seed(3)
d = F.dropout3d(x, 0.5)
print(d[:, :, 0, 0, 0])
d = F.dropout3d(x[0], 0.5)
print(d[:, 0, 0, 0])
f = F.feature_alpha_dropout(x, 0.5, training=True)
print(f[:, :, 0, 0, 0])
print(F.dropout2d(torch.ones(2, 4, 2, 2), 0.5)[:, :, 0, 0], F.dropout1d(torch.ones(2, 5, 3), 0.3)[:, :, 1])
print(F.alpha_dropout(torch.ones(2, 5), 0.3, training=True), nn.AlphaDropout(0.6)(torch.ones(7)))
m = nn.FeatureAlphaDropout(0.3)
print(m(torch.ones(3, 4, 2)))
m = nn.Dropout3d(0.4)
print(m(torch.ones(3, 4, 1, 1, 2)).flatten())
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print(F.dropout3d(torch.ones(2, 3, 4), 0.5, training=False).shape)
print([str(i.message)[:60] for i in w])
for bad in [lambda: nn.Dropout3d(1.5), lambda: F.dropout3d(x, -0.1), lambda: F.feature_alpha_dropout(x, 2.0)]:
    try:
        bad()
    except ValueError as e:
        print("ValueError", e)
