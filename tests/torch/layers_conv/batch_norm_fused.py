# BatchNorm1d/2d through native_batch_norm (one fused op): the output's grad_fn, the running
# statistics after training steps (momentum 0.1 and momentum=None's cumulative average, unbiased
# running_var), evaluation over running stats, affine off, track_running_stats off, gradients of
# input / weight / bias, a second derivative through create_graph, and float64 (float32 values printed
# to 4 decimals: the order of float32 roundings differs from ATen's in the last bit)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=4):
    return [round(v, n) for v in t.detach().flatten().tolist()]


x = torch.randn(4, 3, 5, 5) * 2 + 1
bn = nn.BatchNorm2d(3)
with torch.no_grad():
    bn.weight.copy_(torch.tensor([1.5, -0.5, 2.0]))
    bn.bias.copy_(torch.tensor([0.1, 0.2, -0.3]))
xi = x.clone().requires_grad_()
y = bn(xi)
print(type(y.grad_fn).__name__ if y.grad_fn is not None else None, y.shape)
print("y", r(y[0, :, 0, :]))
print("running", r(bn.running_mean), r(bn.running_var), bn.num_batches_tracked.item())
(y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape).sin()).sum().backward()
print("gx", r(xi.grad[1, :, 2, :]))
print("gw", r(bn.weight.grad), "gb", r(bn.bias.grad))
for _ in range(3):
    bn(x * 0.5)
print("running3", r(bn.running_mean), r(bn.running_var), bn.num_batches_tracked.item())
bn.eval()
ye = bn(xi)
print("eval", type(ye.grad_fn).__name__, r(ye[2, 1, 1, :]))
ye.pow(2).sum().backward()
print("eval gx", r(xi.grad[2, 1, 1, :]))

cum = nn.BatchNorm1d(4, momentum=None)
for k in range(3):
    cum(torch.randn(6, 4) * (k + 1) + k)
print("cumulative", r(cum.running_mean), r(cum.running_var), cum.num_batches_tracked.item())

plain = nn.BatchNorm1d(3, affine=False)
z = torch.randn(5, 3, 7, requires_grad=True)
yp = plain(z)
print("plain", type(yp.grad_fn).__name__, r(yp[0, :, :3]))
(yp * yp.detach().cos()).sum().backward()
print("plain gx2", r(z.grad[0, :, :3]))

nostats = nn.BatchNorm2d(3, track_running_stats=False)
nostats.eval()
print("nostats", nostats.running_mean, r(nostats(x)[0, 0, 0, :]))

w = torch.tensor([1.2, 0.7, -0.4], requires_grad=True)
b = torch.tensor([0.0, 0.5, 1.0], requires_grad=True)
xx = torch.randn(6, 3, 4, requires_grad=True)
out = F.batch_norm(xx, None, None, w, b, training=True)
g, = torch.autograd.grad((out ** 3).sum(), xx, create_graph=True)
gg = torch.autograd.grad(g.pow(2).sum(), (xx, w))
print("double", ["%.4g" % v for v in gg[0][0, :, 0].tolist()], ["%.4g" % v for v in gg[1].tolist()])

bn64 = nn.BatchNorm2d(3, dtype=torch.float64)
x64 = x.double().requires_grad_()
y64 = bn64(x64)
print("f64", y64.dtype, bn64.running_var.dtype, r(y64[0, 0, 0, :], 10), r(bn64.running_var, 10))
y64.pow(3).sum().backward()
print("f64 gx", r(x64.grad[0, 0, 0, :], 8))
try:
    nn.BatchNorm1d(3)(torch.randn(1, 3))
except ValueError as e:
    print("ValueError", e)
