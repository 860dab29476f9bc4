import torch
import torch.nn.functional as F


def det(*shape, scale=0.25):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float32).reshape(shape) % 7 - 3) * scale


def run(name, fn, *inputs):
    ins = [t.clone().requires_grad_(True) for t in inputs]
    out = fn(*ins)
    print(name, tuple(out.shape))
    print(out.flatten()[:12])
    (out * det(*out.shape, scale=0.5)).sum().backward()
    for i, t in enumerate(ins):
        print(" grad", i, tuple(t.grad.shape), t.grad.flatten()[:10])


x = det(2, 3, 7, 6)
w = det(4, 3, 3, 3, scale=0.125)
b = det(4)
run("conv2d", lambda x, w, b: F.conv2d(x, w, b), x, w, b)
run("conv2d stride pad", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), x, w, b)
run("conv2d dilation", lambda x, w: F.conv2d(x, w, None, padding=(2, 1), dilation=(2, 1)), x, w)
run("conv2d same", lambda x, w: F.conv2d(x, w, padding="same", dilation=2), x, det(4, 3, 3, 5, scale=0.125))
run("conv2d valid", lambda x, w: F.conv2d(x, w, padding="valid"), x, w)
run("conv2d groups", lambda x, w, b: F.conv2d(x, w, b, groups=3), det(2, 6, 5, 5), det(6, 2, 3, 3, scale=0.125), det(6))
run("conv2d depthwise", lambda x, w: F.conv2d(x, w, groups=4, padding=1), det(1, 4, 5, 5), det(8, 1, 3, 3, scale=0.125))
run("conv2d 1x1", lambda x, w: F.conv2d(x, w), x, det(5, 3, 1, 1))
run("conv2d unbatched", lambda x, w: F.conv2d(x, w, stride=(1, 2)), det(3, 6, 6), w)
run("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=2, dilation=2), det(2, 3, 11), det(5, 3, 3), det(5))
run("conv1d same", lambda x, w: F.conv1d(x, w, padding="same"), det(2, 4, 9), det(2, 4, 5))
run("conv1d groups", lambda x, w: F.conv1d(x, w, groups=2), det(2, 4, 9), det(2, 2, 4))
run("conv_transpose2d", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
    det(2, 3, 4, 5), det(3, 2, 3, 3, scale=0.125), det(2))
run("conv_transpose2d groups", lambda x, w: F.conv_transpose2d(x, w, groups=2, dilation=2),
    det(1, 4, 3, 3), det(4, 3, 2, 2))
run("conv_transpose1d", lambda x, w: F.conv_transpose1d(x, w, stride=3), det(2, 3, 5), det(3, 2, 4))
run("unfold", lambda x: F.unfold(x, (2, 3), dilation=1, padding=1, stride=2), x)
run("fold", lambda c: F.fold(c, (5, 6), (2, 2), stride=1), det(2, 12, 20))
run("pad constant", lambda x: F.pad(x, (1, 2, 0, 1), value=0.5), det(2, 3, 4))
run("pad reflect", lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"), det(1, 2, 4, 4))
run("pad replicate", lambda x: F.pad(x, (2, 1), mode="replicate"), det(1, 2, 4))
run("pad circular", lambda x: F.pad(x, (1, 2, 2, 1), mode="circular"), det(1, 2, 3, 4))

try:
    F.conv2d(det(2, 4, 5, 5), w)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    F.conv2d(det(2, 3, 5, 5), w, stride=2, padding="same")
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    F.conv2d(det(1, 3, 2, 2), w)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
for f in [lambda: F.conv1d(torch.ones(1, 3, 2), torch.ones(4, 3, 3)),
          lambda: F.conv2d(torch.ones(1, 3, 2, 5), torch.ones(4, 3, 3, 3), dilation=2, padding=1),
          lambda: F.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(3, 2, 3, 3))]:
    try:
        f()
    except RuntimeError as e:
        print("RuntimeError:", e)
print(F.unfold(det(3, 4, 4), 2).shape, F.fold(det(12, 9), (4, 4), 2).shape)
