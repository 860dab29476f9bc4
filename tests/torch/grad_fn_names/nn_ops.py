# The grad_fn of torch.nn.functional results is PyTorch 1.13's node for the op (EluBackward0,
# ConvolutionBackward0, UpsampleBilinear2DBackward1, ...), not the last node of Ember's
# decomposition, so printing a result reads as PyTorch's.  The ops run at module level (compiled
# code keeps its graph's nodes).
import torch
import torch.nn as nn
import torch.nn.functional as F


def n(y):
    return type(y.grad_fn).__name__


torch.manual_seed(0)
x = torch.randn(4, 6, requires_grad=True)
x1 = torch.randn(6, requires_grad=True)
x0 = torch.randn((), requires_grad=True)
xd = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
x3 = torch.randn(2, 3, 8, requires_grad=True)
x4 = torch.randn(2, 3, 6, 6, requires_grad=True)
x5 = torch.randn(1, 2, 4, 4, 4, requires_grad=True)
nog = torch.randn(4, 6)

print("-- activations")
print(F.elu(x[:1]))
print(F.relu6(x[:1] * 4))
print(F.softplus(x[:1]))
print(n(F.relu6(x)), n(F.relu6(x1)), n(F.relu6(x0)), n(F.hardtanh(x)), n(F.hardtanh(xd, -2., 3.)),
      n(nn.Hardtanh()(x)), n(nn.ReLU6()(x)))
print(n(F.elu(x)), n(F.elu(xd, 0.5)), n(nn.ELU()(x)), n(F.elu(x0)))
print(n(F.hardswish(x)), n(nn.Hardswish()(xd)), n(F.hardsigmoid(x)), n(nn.Hardsigmoid()(x)))
print(n(F.softplus(x)), n(F.softplus(x, 2, 1)), n(nn.Softplus()(xd)))
print(n(F.softshrink(x)), n(F.softshrink(x, 0.1)), n(nn.Softshrink()(x)))
print(n(F.logsigmoid(x)), n(nn.LogSigmoid()(xd)), n(F.threshold(x, 0.1, 2.0)), n(nn.Threshold(0.1, 2.0)(x)))
print(n(F.glu(x)), n(F.glu(x, 0)), n(nn.GLU()(x)))
print(n(F.prelu(x, torch.tensor([0.25]))), n(F.prelu(x4, torch.tensor([0.25, .1, .2], requires_grad=True))),
      n(F.prelu(x1, torch.tensor([0.25]))), n(nn.PReLU()(x)), n(nn.PReLU(3)(x3)),
      n(F.prelu(nog, torch.tensor([0.25], requires_grad=True))))
y = F.hardswish(x)
y.sum().backward()
print(y.grad_fn.name(), x.grad[0])

print("-- normalization, dropout")
print(n(F.group_norm(x3, 3)), n(F.group_norm(x3, 3, torch.ones(3), torch.zeros(3))), n(nn.GroupNorm(3, 3)(x3)),
      n(F.group_norm(x4, 1)), n(F.group_norm(torch.randn(2, 3, 4), 3, torch.ones(3, requires_grad=True))))
print(n(F.instance_norm(x3)), n(nn.InstanceNorm1d(3)(x3)), n(nn.InstanceNorm2d(3, affine=True)(x4)),
      n(nn.InstanceNorm2d(3, track_running_stats=True)(x4)),
      n(F.instance_norm(x3, weight=torch.ones(3), bias=torch.zeros(3))))
print(n(F.dropout(x, 0.5)), n(nn.Dropout()(x)), n(F.dropout(xd, 0.2)), n(F.dropout(x, 1.0)),
      n(torch.dropout(x, 0.5, True)))

print("-- bilinear, convolution")
W = torch.randn(2, 6, 6)
print(n(F.bilinear(x, x, W)), n(F.bilinear(x, x, W, torch.randn(2))), n(nn.Bilinear(6, 6, 2)(x, x)),
      n(F.bilinear(x1, x1, W)))
print(n(F.conv1d(x3, torch.randn(4, 3, 3))), n(F.conv1d(x3, torch.randn(4, 3, 3), torch.randn(4))),
      n(F.conv1d(x3[0], torch.randn(4, 3, 3))), n(nn.Conv1d(3, 4, 3)(x3)),
      n(F.conv1d(x3, torch.randn(3, 1, 3), groups=3)))
print(n(F.conv2d(x4, torch.randn(4, 3, 3, 3))), n(F.conv2d(x4, torch.randn(4, 3, 3, 3), torch.randn(4))),
      n(F.conv2d(x4, torch.randn(4, 3, 1, 1))), n(F.conv2d(x4, torch.randn(4, 3, 1, 1), torch.randn(4))),
      n(F.conv2d(x4[0], torch.randn(4, 3, 3, 3))), n(F.conv2d(x4, torch.randn(3, 1, 3, 3), groups=3)),
      n(nn.Conv2d(3, 4, 3, padding=1)(x4)), n(F.conv2d(x4, torch.randn(4, 3, 3, 3), padding="same")),
      n(F.conv2d(torch.randn(1, 3, 5, 5), torch.randn(4, 3, 3, 3, requires_grad=True))))
print(n(F.conv_transpose2d(x4, torch.randn(3, 2, 3, 3))), n(F.conv_transpose2d(x4, torch.randn(3, 2, 3, 3), torch.randn(2))),
      n(F.conv_transpose2d(x4[0], torch.randn(3, 2, 3, 3))), n(nn.ConvTranspose2d(3, 2, 3, stride=2)(x4)),
      n(F.conv_transpose1d(x3, torch.randn(3, 2, 3))), n(nn.ConvTranspose1d(3, 2, 3)(x3)),
      n(F.conv_transpose2d(x4, torch.randn(3, 1, 3, 3), groups=3)))
conv = nn.Conv2d(3, 2, 3)
y = conv(x4[:1, :, :4, :4])
print(y)
y.sum().backward()
print(conv.weight.grad[0, 0])

print("-- pooling")
print(n(F.avg_pool2d(x4, 2)), n(F.avg_pool2d(x4[0], 2)), n(nn.AvgPool2d(3, 2, 1)(x4)),
      n(F.avg_pool2d(x4, 4, ceil_mode=True)), n(F.avg_pool2d(x4, 2, divisor_override=3)), n(F.avg_pool1d(x3, 2)))
print(n(F.adaptive_avg_pool2d(x4, 3)), n(F.adaptive_avg_pool2d(x4, 4)), n(F.adaptive_avg_pool2d(x4[0], 3)),
      n(F.adaptive_avg_pool2d(x4, 1)), n(F.adaptive_avg_pool2d(x4, (6, 1))), n(nn.AdaptiveAvgPool2d((2, 3))(x4)),
      n(F.adaptive_avg_pool2d(x4, (None, 3))), n(F.adaptive_avg_pool1d(x3, 3)))
print(n(F.adaptive_max_pool2d(x4, 3)), n(F.adaptive_max_pool2d(x4, 4)), n(F.adaptive_max_pool2d(x4[0], 3)),
      n(F.adaptive_max_pool2d(x4, 1)), n(F.adaptive_max_pool2d(x4, 3, True)[0]), n(nn.AdaptiveMaxPool2d(2)(x4)),
      n(F.adaptive_max_pool1d(x3, 3)))

print("-- padding")
print(F.pad(x[:2, :3], (1, 1)))
print(n(F.pad(x, (1, 1))), n(F.pad(x, (1, 1, 2, 0), value=1.)), n(F.pad(x, (-1, 1))), n(F.pad(x, (-1, -1))),
      n(nn.ZeroPad2d(1)(x4)), n(nn.ConstantPad1d(2, 3.5)(x3)), n(F.pad(x1, (2, 1))))
print(n(F.pad(x3, (1, 1), "reflect")), n(F.pad(x4, (1, 1, 1, 1), "reflect")), n(F.pad(x5, (1, 1, 1, 1, 1, 1), "reflect")),
      n(F.pad(x3, (1, 1, 1, 1), "reflect")), n(F.pad(x3[0], (1, 2), "reflect")), n(nn.ReflectionPad2d(1)(x4)))
print(n(F.pad(x3, (1, 1), "replicate")), n(F.pad(x4, (1, 1, 1, 1), "replicate")),
      n(F.pad(x5, (1, 1, 1, 1, 1, 1), "replicate")), n(nn.ReplicationPad2d(1)(x4)), n(F.pad(x3[0], (1, 2), "replicate")))
print(n(F.pad(x3, (1, 1), "circular")), n(F.pad(x4, (1, 1, 1, 1), "circular")), n(F.pad(x3, (0, 1), "circular")))
for mode in ("constant", "reflect", "replicate", "circular"):
    y = F.pad(x3, (0, 0), mode)
    print(mode, y is x3, y._base is x3, n(y))
y = F.pad(x, (0, 0))
y[0, 0] = 100.0
print(x[0, 0].item() != 100.0)

print("-- interpolate, pixel shuffle")
print(F.interpolate(x3[:1, :1, :3], scale_factor=2, mode="linear"))
print(n(F.interpolate(x4, scale_factor=2)), n(F.interpolate(x4, size=(8, 8))), n(F.interpolate(x3, scale_factor=2)),
      n(F.interpolate(x5, scale_factor=2)), n(F.interpolate(x4, scale_factor=1.5, recompute_scale_factor=True)),
      n(F.interpolate(x4, size=(6, 6))))
print(n(F.interpolate(x4, scale_factor=2, mode="bilinear")), n(F.interpolate(x4, size=(5, 7), mode="bilinear", align_corners=True)),
      n(F.interpolate(x3, scale_factor=2, mode="linear")), n(F.interpolate(x5, scale_factor=2, mode="trilinear")),
      n(F.interpolate(x4, scale_factor=2, mode="bicubic")), n(F.interpolate(x4, scale_factor=2, mode="nearest-exact")),
      n(F.interpolate(x4, size=(3, 3), mode="area")), n(F.interpolate(x3, size=3, mode="area")))
print(n(nn.Upsample(scale_factor=2)(x4)), n(nn.UpsamplingBilinear2d(scale_factor=2)(x4)),
      n(nn.UpsamplingNearest2d(scale_factor=2)(x4)))
p4 = torch.randn(1, 4, 2, 2, requires_grad=True)
print(n(F.pixel_shuffle(p4, 2)), n(F.pixel_shuffle(p4[0], 2)), n(nn.PixelShuffle(2)(p4)), n(F.pixel_unshuffle(x4, 2)),
      n(nn.PixelUnshuffle(3)(x4)), n(F.pixel_shuffle(x4, 1)), n(F.pixel_unshuffle(x4, 1)))
y = F.pixel_shuffle(x4, 1)
print(y._base is x4, y.data_ptr() == x4.data_ptr())
