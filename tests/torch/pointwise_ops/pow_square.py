# x ** 2 is computed as x * x, as ATen's pow kernel does for a scalar exponent of 2: every element
# equals the product, in float32, float64 and float16, eager and compiled (before, libm's powf gave
# a different last bit on some float32 elements, so torch.equal(x ** 2, x * x) was False).
import torch


def squares(x):
    return x ** 2, x * x, torch.pow(x, 2.0)


torch.manual_seed(0)
for dtype in (torch.float32, torch.float64, torch.float16):
    x = (torch.randn(100000) * 10).to(dtype)
    a, b, c = squares(x)
    print(dtype, torch.equal(a, b), torch.equal(c, b), a[:4])

x = torch.randn(6, requires_grad=True)
y = (x ** 2).sum()
y.backward()
print(torch.equal(x.grad, 2 * x.detach()))
print(torch.tensor([3, -4], dtype=torch.int32) ** 2, torch.tensor([2.5]) ** 3)
