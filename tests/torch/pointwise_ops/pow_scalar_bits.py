# x ** scalar as ATen 1.13's pow_tensor_scalar kernel computes it: the exponents 2, 3 and -2 are
# products (x * x * x rounds twice, unlike pow(x, 3)), 0.5 / -0.5 / -1 the sqrt, rsqrt and
# reciprocal kernels, 1 a copy; other exponents the pow function (a short run: ATen's scalar
# loop).  A tensor exponent has no special cases.  Gradients of x ** 3 as NewGELU needs them.
import hashlib
import torch

torch.manual_seed(0)
H = lambda t: hashlib.sha1(' '.join(v.hex() for v in t.double().flatten().tolist()).encode()).hexdigest()[:12]
x = torch.randn(4099) * 3
xp = x.abs() + 0.01
for e in (2, 3, 3.0, -1, -2, -2.0, 0.5, -0.5, 1, 1.0, 0, 0.0):
    base = xp if e in (0.5, -0.5) else x
    print("pow", e, H(base ** e), H(torch.pow(base, e)), H(base.double() ** e), (base ** e).dtype)
short = x[:12]
for e in (1.5, 4, 2.5, -3):
    print("short", e, H(short.abs() ** e), H(short ** 4) if e == 4 else "")
print("tensor exponent", H(x[:12] ** torch.full((12,), 3.0)), H(torch.pow(x[:12], torch.tensor(2.0))))
ix = torch.arange(-4, 8)
print("int", (ix ** 2).tolist(), (ix ** 3).tolist(), (ix ** 0.5).dtype, (ix.abs() ** 0.5)[:4].tolist())
y = x.clone().requires_grad_(True)
(y ** 3).backward(torch.ones_like(y) * 0.7)
print("grad", H(y.grad))
z = x.clone()
z **= 3
print("inplace", H(z), H(x ** 3))
try:
    ix ** -1
except RuntimeError as err:
    print("RuntimeError", err)
