# torch.autograd's anomaly mode: the switches, the context managers, and the engine's NaN check
# (a node whose backward returns NaN fails with PyTorch's message); the warnings are recorded so
# the output does not depend on where PyTorch's own files live
import warnings

import torch
import torch.nn as nn

print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        print("inside", torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    print([str(x.message) for x in w if "Anomaly" in str(x.message)])
print("after", torch.is_anomaly_enabled())

x = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
y = x.sqrt() * 0.0   # 0 * inf -> NaN in SqrtBackward0's gradient only through its input grad
y.sum().backward()
print("without anomaly mode:", x.grad)

x.grad = None
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        y = x.sqrt() * 0.0
        try:
            y.sum().backward()
        except RuntimeError as e:
            print("RuntimeError:", e)
print(x.grad)

m = torch.autograd.set_detect_anomaly(True)
print(torch.is_anomaly_enabled())
a = torch.tensor([1.0, 0.0], requires_grad=True)
b = a / a
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    try:
        b.sum().backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
with torch.autograd.set_detect_anomaly(False):
    print("nested off", torch.is_anomaly_enabled())
print("restored", torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(True, check_nan=False)
print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
a.grad = None
(a / a).sum().backward()
print(a.grad)
torch.set_anomaly_enabled(False)

# a model's training step under anomaly mode: finite, so nothing is raised
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        for step in range(3):
            loss = net(torch.randn(5, 4)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(step, round(loss.item(), 6))
        z = net(torch.randn(2, 4)) * float("nan")
        try:
            z.sum().backward()
        except RuntimeError as e:
            print("RuntimeError:", e)
