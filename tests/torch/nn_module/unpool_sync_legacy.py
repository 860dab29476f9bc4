# nn.MaxUnpool1d/2d/3d and F.max_unpool* (scatter back by index, gradient gathered, PyTorch errors),
# the deprecated nn.Container and nn.NLLLoss2d, nn.SyncBatchNorm and convert_sync_batchnorm
# (a CPU input raises as in PyTorch 1.13); all were missing
import warnings
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(1, 2, 4, 4, requires_grad=True)
pool = nn.MaxPool2d(2, return_indices=True)
unpool = nn.MaxUnpool2d(2)
print(unpool)
y, idx = pool(x)
z = unpool(y, idx)
print(z, z.grad_fn.name())
(z * torch.arange(32.).view(1, 2, 4, 4)).sum().backward()
print(x.grad)
print(unpool(y, idx, output_size=torch.Size([1, 2, 5, 5])).shape)
for bad in [lambda: unpool(y, idx, output_size=[9, 9]), lambda: unpool(y, idx, output_size=[1, 2, 3]), lambda: F.max_unpool2d(y, idx * 10, 2)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
p1 = nn.MaxPool1d(2, stride=2, return_indices=True); u1 = nn.MaxUnpool1d(2, stride=2)
a = torch.tensor([[[1., 2, 3, 4, 5, 6, 7, 8]]])
o, i = p1(a); print(u1(o, i), u1(o, i, output_size=a.size()), u1)
p3 = nn.MaxPool3d(2, return_indices=True) if hasattr(nn, "MaxPool3d") else None
print(nn.MaxUnpool3d(2), F.max_unpool3d(torch.ones(1, 1, 1, 1, 1), torch.tensor([[[[[5]]]]]), 2))
print(F.max_unpool2d(torch.tensor([[[5., 6.]]]), torch.tensor([[[0, 3]]]), 2).shape)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    c = nn.Container(a=nn.Linear(2, 2), b=nn.ReLU())
    l2 = nn.NLLLoss2d()
    print(c, [str(m.message) for m in w])
print(l2(torch.randn(2, 3, 4, 4).log_softmax(1), torch.randint(0, 3, (2, 4, 4))))
net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Sequential(nn.BatchNorm1d(4)))
sync = nn.SyncBatchNorm.convert_sync_batchnorm(net)
print(sync, sync[1].weight is net[1].weight)
try:
    sync(torch.randn(2, 3, 5, 5))
except ValueError as e:
    print("ValueError:", e)
print(nn.SyncBatchNorm(5, momentum=0.2))
import torch, torch.nn.functional as F
try:
    F.max_unpool3d(torch.ones(1, 1, 1, 1, 1), torch.tensor([[[[[50]]]]]), 2)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.max_unpool1d(torch.ones(1, 1, 2), torch.tensor([[[0, 9]]]), 2)
except Exception as e:
    print(type(e).__name__, e)
