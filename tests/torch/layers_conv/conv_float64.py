# Convolution, unfold/fold, max pooling and interpolation in float64 (forward, backward, and
# gradcheck as PyTorch runs it): the im2col / col2im / max_pool2d kernels under them work on
# float64 as on float32, and interpolate's weights are float64 for a float64 input
import torch
import torch.nn.functional as F
from torch.autograd import gradcheck

d = torch.float64


def show(*ts):
    for t in ts:
        print(t.dtype, tuple(t.shape), [round(v, 10) for v in t.detach().flatten().tolist()])


x = (torch.arange(2 * 2 * 5 * 5, dtype=d).reshape(2, 2, 5, 5) * 0.37).sin().requires_grad_()
w = (torch.arange(3 * 2 * 3 * 3, dtype=d).reshape(3, 2, 3, 3) * 0.11).cos().requires_grad_()
b = torch.tensor([0.1, -0.2, 0.3], dtype=d, requires_grad=True)

y = F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2))
print(y.dtype, tuple(y.shape))
show(y[1, 2])
(y * y).sum().backward()
show(x.grad[0, 1])
show(w.grad[2, 0])
show(b.grad)

u = F.unfold(x, (2, 3), padding=(1, 0), stride=2)
show(u[0, :, 1])
f = F.fold(u, (5, 5), (2, 3), padding=(1, 0), stride=2)
show(f[1, 0])

x.grad = None
v, idx = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
show(v[0, 1], idx[0, 1])
v.sum().backward()
show(x.grad[0, 1])

show(F.conv_transpose2d(x[:, :, :3, :3], w.transpose(0, 1), stride=2)[0, 1])
show(F.avg_pool2d(x, 2)[1, 0], F.adaptive_avg_pool2d(x, 2)[1, 1])
show(F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)[0, 0, :2])
# weights that float32 cannot hold exactly: (5 - 1) / (7 - 1) steps, 1.5 steps
show(F.interpolate(x, size=(7, 3), mode="bilinear", align_corners=True)[1, 1])
show(F.interpolate(x[0], size=9, mode="linear", align_corners=False)[1, 2])
show(F.pixel_shuffle(torch.arange(8, dtype=d).reshape(1, 8, 1, 1), 2)[0, 1])

xs = x.detach()[:1, :1, :4, :4].clone().requires_grad_()
ws = w.detach()[:2, :1].clone().requires_grad_()
print(gradcheck(lambda a, k: F.conv2d(a, k, stride=2, padding=1), (xs, ws)))
print(gradcheck(lambda a: F.max_pool2d(a, 2, stride=1), (xs,)))
print(gradcheck(lambda a: F.interpolate(a, size=(5, 3), mode="bilinear", align_corners=True), (xs,)))
print(gradcheck(lambda a: F.fold(F.unfold(a, 2, dilation=2), (4, 4), 2, dilation=2), (xs,)))
