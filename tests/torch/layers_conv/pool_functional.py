import torch
import torch.nn.functional as F


def det(*shape, scale=0.25):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float32).reshape(shape) * 5 % 11 - 5) * scale


def run(name, fn, *inputs):
    ins = [t.clone().requires_grad_(True) for t in inputs]
    out = fn(*ins)
    if isinstance(out, tuple):
        print(name, "indices", out[1].flatten()[:12])
        out = out[0]
    print(name, tuple(out.shape))
    print(out.flatten()[:12])
    (out * det(*out.shape, scale=0.5)).sum().backward()
    for i, t in enumerate(ins):
        print(" grad", i, tuple(t.grad.shape), t.grad.flatten()[:12])


x = det(2, 3, 7, 6)
run("max_pool2d", lambda x: F.max_pool2d(x, 2), x)
run("max_pool2d stride pad", lambda x: F.max_pool2d(x, 3, stride=2, padding=1), x)
run("max_pool2d ceil", lambda x: F.max_pool2d(x, 2, ceil_mode=True, return_indices=True), x)
run("max_pool2d dilation", lambda x: F.max_pool2d(x, (2, 3), stride=1, dilation=(2, 1), return_indices=True), x)
run("max_pool2d unbatched", lambda x: F.max_pool2d(x, 3, 2), det(3, 5, 5))
run("max_pool1d", lambda x: F.max_pool1d(x, 3, stride=2, padding=1, return_indices=True), det(2, 3, 9))
run("max_pool1d ceil", lambda x: F.max_pool1d(x, 2, ceil_mode=True), det(2, 3, 9))
run("avg_pool2d", lambda x: F.avg_pool2d(x, 2), x)
run("avg_pool2d pad", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1), x)
run("avg_pool2d no pad count", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False), x)
run("avg_pool2d ceil", lambda x: F.avg_pool2d(x, 2, ceil_mode=True), x)
run("avg_pool2d divisor", lambda x: F.avg_pool2d(x, 2, divisor_override=3), x)
run("avg_pool1d", lambda x: F.avg_pool1d(x, 4, stride=2, padding=2), det(2, 3, 9))
run("adaptive_avg_pool2d 1", lambda x: F.adaptive_avg_pool2d(x, 1), x)
run("adaptive_avg_pool2d even", lambda x: F.adaptive_avg_pool2d(x, (7, 3)), x)
run("adaptive_avg_pool2d uneven", lambda x: F.adaptive_avg_pool2d(x, (4, 4)), x)
run("adaptive_avg_pool2d none", lambda x: F.adaptive_avg_pool2d(x, (None, 2)), x)
run("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), det(2, 3, 10))
run("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True), x)
run("adaptive_max_pool2d even", lambda x: F.adaptive_max_pool2d(x, (7, 2)), x)
run("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), det(1, 8, 2, 3))
run("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), det(1, 2, 4, 6))
run("interpolate nearest", lambda x: F.interpolate(x, scale_factor=2), det(1, 2, 3, 3))
run("interpolate nearest size", lambda x: F.interpolate(x, size=(5, 4)), det(1, 2, 3, 3))
run("interpolate bilinear", lambda x: F.interpolate(x, size=(5, 6), mode="bilinear", align_corners=False), det(1, 2, 3, 4))
run("interpolate bilinear ac", lambda x: F.interpolate(x, size=(5, 5), mode="bilinear", align_corners=True), det(1, 2, 3, 3))
run("interpolate linear", lambda x: F.interpolate(x, size=7, mode="linear"), det(1, 2, 4))

for f in [lambda: F.max_pool2d(torch.ones(1, 1, 2, 2), 3), lambda: F.avg_pool2d(torch.ones(1, 1, 2, 2), 3, padding=2),
          lambda: F.max_pool2d(torch.ones(1, 1, 5, 5), 3, padding=2)]:
    try:
        f()
    except RuntimeError as e:
        print("RuntimeError:", e)
