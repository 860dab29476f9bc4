# interpolate's bicubic, nearest-exact and trilinear modes and antialias's refusal: values, gradients.
# Ember's bicubic and trilinear are compositions within a few float ulps of ATen's kernels (not
# bit-identical), so the data is generic (randn) rather than values that round on a printed digit.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
img = torch.randn(2, 2, 5, 6)
for kw in [dict(size=(9, 11)), dict(size=(3, 4)), dict(scale_factor=2), dict(scale_factor=1.5),
           dict(scale_factor=(0.6, 2.5)), dict(size=(1, 1))]:
    for ac in (False, True):
        a = img.double().requires_grad_(True)
        y = F.interpolate(a, mode="bicubic", align_corners=ac, **kw)
        (y * torch.arange(y.numel(), dtype=torch.float64).reshape(y.shape) * 0.01).sum().backward()
        y32 = F.interpolate(img, mode="bicubic", align_corners=ac, **kw)
        print("bicubic", kw, ac, tuple(y.shape), y[1, 0, :3].detach(), a.grad[0, 1, :2],
              y32.dtype, bool((y32.double() - y).abs().max() < 1e-5))

seq = img.reshape(2, 2, 30)
for kw in [dict(size=(9, 11)), dict(size=(3, 4)), dict(scale_factor=2), dict(scale_factor=1.5),
           dict(scale_factor=(0.6, 2.5)), dict(size=(7, 5))]:
    a = img.clone().requires_grad_(True)
    y = F.interpolate(a, mode="nearest-exact", **kw)
    (y * torch.arange(y.numel(), dtype=torch.float32).reshape(y.shape)).sum().backward()
    print("nearest-exact", kw, tuple(y.shape), y[0, 0, :2], a.grad[1, 1, :2])
print(F.interpolate(seq, size=13, mode="nearest-exact")[0, 1])
print(F.interpolate(seq, scale_factor=0.7, mode="nearest-exact")[1, 0])

vol = img.double().reshape(2, 2, 5, 3, 2)
for kw in [dict(size=(3, 4, 5)), dict(scale_factor=2)]:
    for ac in (False, True):
        a = vol.clone().requires_grad_(True)
        y = F.interpolate(a, mode="trilinear", align_corners=ac, **kw)
        y.pow(2).sum().backward()
        y32 = F.interpolate(vol.float(), mode="trilinear", align_corners=ac, **kw)
        print("trilinear", kw, ac, tuple(y.shape), y[1, 1, 1, :2], a.grad[0, 0, 1],
              bool((y32.double() - y).abs().max() < 1e-5))

for bad, exc in [(lambda: F.interpolate(img, size=(3, 3), mode="nearest-exact", align_corners=True), ValueError),
                 (lambda: F.interpolate(img, size=(3, 3), mode="nearest", antialias=True), ValueError)]:
    try:
        bad()
    except exc as e:
        print(type(e).__name__, e)
