"""Binary ops with no Scalar overload in ATen (atan2, hypot, logaddexp(2), maximum, minimum,
logical_and) refuse a Python number as PyTorch's argument parser does; those with one (copysign,
fmod, remainder, xlogy) take it.  Also torch.pow(number, tensor)."""
import torch
x = torch.tensor([1.0, 2.0])
for n in ["atan2", "hypot", "logaddexp", "logaddexp2", "copysign", "fmod", "maximum", "minimum", "logical_and", "remainder", "xlogy"]:
    for form in ["fn", "method", "inplace"]:
        try:
            if form == "fn": r = getattr(torch, n)(x, 2.0)
            elif form == "method": r = getattr(x, n)(2.0)
            else: r = getattr(x.clone(), n + "_")(2.0)
            print(n, form, "ok", r)
        except Exception as e:
            print(n, form, type(e).__name__, e)
print(torch.pow(2, torch.tensor([1.0, -1.0, 0.5])), torch.pow(2.5, torch.tensor([2, 3])), torch.pow(2, torch.tensor([2, 3])))
e = torch.tensor([1.0, 2.0], requires_grad=True)
r = torch.pow(3.0, e)
r.sum().backward()
print(r, e.grad)
