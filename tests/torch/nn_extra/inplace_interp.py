# in-place activations (F.*_ and torch.*_), F.upsample_nearest / upsample_bilinear and
# interpolate's area mode: values, gradients, errors
import torch
import torch.nn.functional as F

x = (torch.arange(12, dtype=torch.float32) - 5.5) * 0.5
x = x.reshape(3, 4)

for name, f in [("relu_", lambda t: F.relu_(t)), ("elu_", lambda t: F.elu_(t)),
                ("elu_ a=0.5", lambda t: F.elu_(t, 0.5)), ("leaky_relu_", lambda t: F.leaky_relu_(t)),
                ("leaky_relu_ 0.2", lambda t: F.leaky_relu_(t, 0.2)), ("hardtanh_", lambda t: F.hardtanh_(t)),
                ("hardtanh_ -2,0.5", lambda t: F.hardtanh_(t, -2.0, 0.5)),
                ("threshold_", lambda t: F.threshold_(t, 0.5, -3.0)), ("torch.relu_", lambda t: torch.relu_(t))]:
    t = x.clone()
    r = f(t)
    print(name, r is t, t)
    a = x.clone().requires_grad_(True)
    b = a * 1.0
    f(b)
    b.sum().backward()
    print("  grad", a.grad)

try:
    F.relu_(x.clone().requires_grad_(True))
except RuntimeError as e:
    print("RuntimeError", e)

img = (torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5) % 7) * 0.25
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print(F.upsample_nearest(img[:1, :1], scale_factor=2))
    print(F.upsample_nearest(img[:1, :1], size=(5, 7)))
    print(F.upsample_bilinear(img[:1, :1], scale_factor=2))
    print(F.upsample_bilinear(img[:1, :1], size=(3, 8)))
print([(x.category.__name__, str(x.message)) for x in w])

for size in [(2, 2), (3, 3), (2, 5), (7, 9), 1]:
    a = img.clone().requires_grad_(True)
    y = F.interpolate(a, size=size, mode="area")
    (y * torch.arange(y.numel(), dtype=torch.float32).reshape(y.shape)).sum().backward()
    print("area", size, y[0, 0], y[1, 2], a.grad[1, 2])
y = F.interpolate(img, scale_factor=0.5, mode="area")
print("area sf 0.5", y.shape, y[1, 1])
y = F.interpolate(img, scale_factor=(0.75, 1.5), mode="area")
print("area sf (0.75, 1.5)", y.shape, y[0, 2])
seq = img.reshape(2, 3, 20)
a = seq.clone().requires_grad_(True)
y = F.interpolate(a, size=6, mode="area")
y.pow(2).sum().backward()
print("area 1d", y[1], a.grad[1, 0])
print(F.interpolate(seq, scale_factor=0.3, mode="area")[0])
try:
    F.interpolate(img, size=(2, 2), mode="area", align_corners=True)
except ValueError as e:
    print("ValueError", e)
