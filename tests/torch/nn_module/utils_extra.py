# nn.utils.stateless.functional_call (tensors swapped in for one call, gradients to them, the
# module restored), nn.utils.skip_init (no draw from the default generator), fuse_conv_bn_eval /
# fuse_conv_bn_weights (PyTorch's operations); all were missing
import torch
import torch.nn as nn

torch.manual_seed(0)
m = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
m.eval()
w = torch.ones(2, 3, requires_grad=True)
out = nn.utils.stateless.functional_call(m, {"0.weight": w, "1.running_mean": torch.tensor([0.5, -0.5])},
                                         (torch.arange(6.).view(2, 3),))
print(out)
out.sum().backward()
print(w.grad, m[0].weight.grad, m[1].running_mean)
print(type(m[0].weight).__name__, m[0].weight.shape)
out2 = nn.utils.stateless.functional_call(m[0], {"bias": torch.zeros(2)}, torch.ones(1, 3), {})
print(out2)

state = torch.get_rng_state()
lin = nn.utils.skip_init(nn.Linear, 4, 5)
print(type(lin).__name__, lin.weight.shape, torch.equal(state, torch.get_rng_state()))
print(torch.randn(2))
try:
    nn.utils.skip_init(nn.ReLU)
except RuntimeError as e:
    print("RuntimeError:", e)

conv = nn.Conv2d(2, 3, 3, bias=False).eval()
bn = nn.BatchNorm2d(3).eval()
with torch.no_grad():
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    bn.weight.uniform_(0.5, 1.5)
    bn.bias.uniform_(-0.5, 0.5)
x = torch.randn(1, 2, 5, 5)
fused = nn.utils.fuse_conv_bn_eval(conv, bn)
print(fused, fused.bias)
print((fused(x) - bn(conv(x))).abs().max() < 1e-5)
ct = nn.ConvTranspose2d(3, 2, 2).eval()
bn2 = nn.BatchNorm2d(2).eval()
print(nn.utils.fuse_conv_bn_eval(ct, bn2, transpose=True).weight.shape)
wf, bf = nn.utils.fuse_conv_bn_weights(conv.weight, None, bn.running_mean, bn.running_var, bn.eps, None, None)
print(wf.sum(), bf)
try:
    nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1))
except AssertionError as e:
    print("AssertionError:", e)
