# x ** e for an exponent without a special case, pow(tensor, tensor) and number ** tensor: ATen's
# vector body computes whole 16-float (8-double) blocks with Sleef's pow_u10, its scalar loop a
# run too short for one block with std::pow.  Then a polynomial-features regression in the style
# of pytorch/examples' regression/main.py (x ** 4 of 32 samples, smooth_l1_loss, manual SGD),
# whose learned coefficients drifted from PyTorch's when every element used libm's pow.
import hashlib
import torch
import torch.nn.functional as F

torch.manual_seed(0)
H = lambda t: hashlib.sha1(' '.join(v.hex() for v in t.double().flatten().tolist()).encode()).hexdigest()[:12]
x = torch.randn(4096) * 2
xa = x.abs() + 0.05
for e in (4, 5, -3, 7, 1.5, 2.7, 0.25, -1.3):
    base = x if isinstance(e, int) else xa
    print("pow", e, H(base ** e), H(torch.pow(base, e)), H(base.double() ** e))
y = torch.rand(4096) * 4 - 2
print("tensor exponent", H(torch.pow(xa, y)), H(xa.double() ** y.double()))
print("number base", H(1.7 ** y), H(torch.pow(2.5, y)))
short = xa[:12]
print("short", H(short ** 2.5), H(torch.pow(short, y[:12])))
g = xa[:64].clone().requires_grad_()
(g ** 2.7).backward(torch.linspace(-1, 1, 64))
print("grad", H(g.grad))

W_target = torch.randn(4, 1) * 5
b_target = torch.randn(1) * 5


def features(v):
    v = v.unsqueeze(1)
    return torch.cat([v ** i for i in range(1, 5)], 1)


fc = torch.nn.Linear(4, 1)
for step in range(60):
    bx = features(torch.randn(32))
    by = bx.mm(W_target) + b_target.item()
    fc.zero_grad()
    loss = F.smooth_l1_loss(fc(bx), by)
    loss.backward()
    for p in fc.parameters():
        p.data.add_(-0.1 * p.grad)
    if step % 10 == 9:
        print(step, repr(loss.item()))
print([repr(v) for v in fc.weight.view(-1).tolist()], repr(fc.bias.item()))
