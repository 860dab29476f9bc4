# softmax and relu gradients in float32 (Ember's fused _softmax_backward_data over the last dim and
# one-pass threshold_backward): rows of several lengths (under and over the kernel's 16 lanes),
# softmax over a leading dim and a non-contiguous incoming gradient (the composed formula), the
# relu mask at -0, 0, NaN and infinities, an attention block's input gradient, and a double
# backward through both under create_graph.
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)

def r5(t):
    return [round(v, 5) + 0.0 for v in t.reshape(-1).tolist()[:8]]

for shape, dim in (((3, 5), -1), ((4, 64), -1), ((2, 3, 17), 2), ((5, 1), -1), ((6, 40), 0)):
    x = (torch.randn(*shape) * 3).requires_grad_(True)
    g = torch.randn(*shape)
    torch.softmax(x, dim).backward(g)
    print("softmax", shape, dim, r5(x.grad))
x = torch.randn(6, 8, requires_grad=True)
torch.softmax(x, -1).backward(torch.randn(8, 6).t())
print("softmax, transposed gradient", r5(x.grad))
x = torch.tensor([[1.0, 2.0, 3.0], [-float("inf"), 0.0, 0.0], [5.0, 5.0, 5.0]], requires_grad=True)
torch.softmax(x, -1).backward(torch.tensor([[1.0, -1.0, 0.5], [2.0, 3.0, -4.0], [1.0, 1.0, 1.0]]))
print("softmax, -inf logit", r5(x.grad))

v = torch.tensor([-0.0, 0.0, 1.5, -2.0, float("inf"), -float("inf"), float("nan")], requires_grad=True)
torch.relu(v).backward(torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]))
print("relu", v.grad.tolist())
v = torch.randn(4, 5, requires_grad=True)
torch.relu_(v * 2.0).backward(torch.randn(4, 5))
print("relu_", r5(v.grad))

attn = nn.MultiheadAttention(16, 4)
ff = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16))
x = torch.randn(5, 3, 16, requires_grad=True)
(ff(attn(x, x, x, need_weights=False)[0]) ** 2).sum().backward()
print("attention block", r5(x.grad), r5(attn.in_proj_weight.grad), r5(ff[0].weight.grad))

x = torch.randn(3, 4, requires_grad=True)
y = torch.softmax(torch.relu(x) * 2.0, -1)
(gx,) = torch.autograd.grad((y * torch.linspace(-1.0, 1.0, 12).reshape(3, 4)).sum(), x, create_graph=True)
(gx ** 2).sum().backward()
print("double backward", r5(gx), r5(x.grad), gx.grad_fn is not None)
