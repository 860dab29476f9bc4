"""Pointwise ops added through the op table: erfc, sinc, trunc/fix, frac, sgn (unary) and hypot,
logaddexp, logaddexp2, copysign (binary), their gradients and grad_fn names, in-place forms
(fmod_, atan2_, hypot_, copysign_), dtypes, and PyTorch's refusals."""
import torch
x = torch.tensor([0.5, -1.5, 0.0, 2.25, -0.0], requires_grad=True)
y = torch.tensor([2.0, 0.25, -1.0, -3.5, 1.0], requires_grad=True)
for name in ["erfc", "sinc", "trunc", "fix", "frac", "sgn"]:
    r = getattr(torch, name)(x)
    print(name, r, r.grad_fn.name())
    g, = torch.autograd.grad(r.sum(), x)
    print(" grad", g)
for name in ["hypot", "logaddexp", "logaddexp2", "copysign"]:
    r = getattr(torch, name)(x, y)
    print(name, r, r.grad_fn.name())
    gx, gy = torch.autograd.grad((r * torch.arange(5.0)).sum(), (x, y))
    print(" grads", gx, gy)
a = torch.tensor([5.5, -7.25, 3.0])
print(a.clone().fmod_(2.0), a.clone().fmod_(torch.tensor([2.0, -3.0, 4.0])))
print(a.clone().atan2_(torch.tensor([1.0, 2.0, -3.0])), a.clone().hypot_(torch.tensor([1.0, 2.0, -3.0])))
print(a.clone().copysign_(torch.tensor([-1.0, 2.0, -0.0])), a.trunc(), a.frac(), a.sgn(), a.erfc(), a.sinc())
print(torch.tensor([3, -2, 0]).trunc(), torch.tensor([3, -2, 0]).sgn(), torch.tensor([True, False]).sgn())
print(torch.copysign(torch.tensor([1, 2]), torch.tensor([-1, 1])), torch.erfc(torch.tensor([1, 0])), torch.sinc(torch.tensor([1, 0])))
print(torch.logaddexp(torch.tensor([float("inf"), float("-inf"), 1e30, float("nan")]), torch.tensor([float("inf"), float("-inf"), 1.0, 1.0])))
print(torch.logaddexp2(torch.tensor([float("inf"), float("-inf"), 3.0]), torch.tensor([float("inf"), float("-inf"), 3.0])))
d = torch.tensor([0.1, 0.7], dtype=torch.float64)
print(torch.hypot(d, d), torch.logaddexp(d, d * 3), torch.sinc(d), torch.erfc(d), torch.logaddexp2(d, -d))
b = torch.tensor([0.1, 2.5], dtype=torch.bfloat16)
# sinc on bfloat16 is left out: 1.13 rounds its intermediate product to bfloat16, Ember keeps it in float
print(torch.hypot(b, b), torch.logaddexp(b, b), torch.erfc(b), torch.trunc(b), torch.frac(b))
print(torch.frac(torch.tensor([2.75, -1.5], dtype=torch.float16)), torch.copysign(torch.tensor([2.75], dtype=torch.float16), -1.0))
for bad in [lambda: torch.hypot(x, 2.0), lambda: torch.frac(torch.tensor([1, 2])), lambda: torch.trunc(torch.tensor([True])),
            lambda: torch.hypot(torch.tensor([1, 2]), torch.tensor([1, 2])), lambda: torch.erfc(torch.tensor([1.0], dtype=torch.float16)),
            lambda: torch.logaddexp(torch.tensor([1.0]), torch.tensor([1.0, 2.0, 3.0]).view(3, 1)).shape]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
print(torch.copysign(torch.tensor([1.0, -2.0]), -0.0), torch.copysign(torch.tensor([1.0, -2.0]), 3))
print(torch.special.erfc(torch.tensor([0.3])), torch.special.sinc(torch.tensor([0.3])))
