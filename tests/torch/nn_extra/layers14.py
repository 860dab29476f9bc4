# padding layers, ChannelShuffle, LocalResponseNorm, LPPool1d/2d, F.adaptive_max_pool1d,
# PairwiseDistance / CosineSimilarity: reprs, values, gradients, errors
import torch
import torch.nn as nn
import torch.nn.functional as F

img = (torch.arange(2 * 4 * 3 * 4, dtype=torch.float32).reshape(2, 4, 3, 4) % 7) * 0.25 - 0.5
vol = (torch.arange(1 * 2 * 3 * 3 * 4, dtype=torch.float32).reshape(1, 2, 3, 3, 4) % 5) * 0.5 - 1.0
seq = img.reshape(2, 4, 12)

def run(m, x):
    a = x.clone().requires_grad_(True)
    y = m(a)
    (y * torch.arange(y.numel(), dtype=torch.float32).reshape(y.shape)).sum().backward()
    print(m, tuple(y.shape), y.detach().flatten()[:10], a.grad.flatten()[:10])

for m, x in [(nn.ConstantPad1d(2, 3.5), seq), (nn.ConstantPad1d((1, 3), -1.0), seq),
             (nn.ConstantPad2d((1, 0, 2, 1), 0.5), img), (nn.ConstantPad2d(1, 2), img),
             (nn.ConstantPad3d(1, 0.25), vol), (nn.ConstantPad3d((0, 1, 1, 0, 2, 1), -2.0), vol),
             (nn.ZeroPad2d(2), img), (nn.ZeroPad2d((1, 2, 0, 1)), img),
             (nn.ReflectionPad1d(3), seq), (nn.ReflectionPad1d((2, 1)), seq),
             (nn.ReflectionPad2d(2), img), (nn.ReflectionPad2d((1, 3, 2, 0)), img),
             (nn.ReflectionPad3d(1), vol), (nn.ReflectionPad3d((2, 1, 0, 2, 1, 1)), vol),
             (nn.ReplicationPad1d(4), seq), (nn.ReplicationPad2d((3, 0, 1, 2)), img),
             (nn.ReplicationPad3d(2), vol), (nn.ReplicationPad3d((1, 0, 0, 2, 3, 1)), vol),
             (nn.ZeroPad2d(-1), img)]:
    run(m, x)
for m, x in [(nn.ReflectionPad2d(3), img), (nn.ReflectionPad2d((0, 4, 0, 0)), img), (nn.ReflectionPad1d((0, 12)), seq),
             (nn.ReflectionPad3d((0, 0, 0, 0, 3, 0)), vol)]:
    try:
        m(x)
    except RuntimeError as e:
        print("RuntimeError", e)

# (1.13 has no derivative for channel_shuffle: forward only)
for g in (1, 2, 4):
    m = nn.ChannelShuffle(g)
    print(m, m(img)[1, :, 1])
print(nn.ChannelShuffle(2)(vol)[0, :, 0, 0])
print(F.channel_shuffle(torch.arange(12.).reshape(1, 6, 2), 3))
for bad in [lambda: F.channel_shuffle(img, 3), lambda: F.channel_shuffle(img[0, 0], 2)]:
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", e)

for m, x in [(nn.LocalResponseNorm(2), img), (nn.LocalResponseNorm(3, alpha=0.5, beta=0.5, k=2.0), img),
             (nn.LocalResponseNorm(5, alpha=1.0), seq), (nn.LocalResponseNorm(3), vol)]:
    run(m, x)
try:
    F.local_response_norm(img[0, 0], 2)
except ValueError as e:
    print("ValueError", e)

for m, x in [(nn.LPPool2d(2, 2), img), (nn.LPPool2d(1.5, (2, 3), stride=(1, 1)), img.abs() + 0.1),
             (nn.LPPool2d(3, 2, ceil_mode=True), img), (nn.LPPool1d(2, 3), seq),
             (nn.LPPool1d(1, 4, stride=2), seq)]:
    run(m, x)

a = seq.clone().requires_grad_(True)
v, i = F.adaptive_max_pool1d(a, 5, return_indices=True)
(v * torch.arange(v.numel(), dtype=torch.float32).reshape(v.shape)).sum().backward()
print(v[0], i[0], a.grad[0])
print(F.adaptive_max_pool1d(seq[0], 3))
print(nn.AdaptiveMaxPool1d(4)(seq)[1])

x1, x2 = img.reshape(8, 12), img.reshape(8, 12).flip(0)
for m in [nn.PairwiseDistance(), nn.PairwiseDistance(p=1.0, keepdim=True), nn.CosineSimilarity(),
          nn.CosineSimilarity(dim=0, eps=1e-3)]:
    print(m, m(x1, x2))
