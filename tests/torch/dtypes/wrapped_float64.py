# A Python float operand without a scalar kernel (fmod, 0.7 / t, where(c, t, 0.1)) is a float64
# wrapped number, as PyTorch's scalar_to_tensor makes it: a float64 tensor meets 0.7 unrounded
# (it was a float32 0.7: fmod(1.540996108244, 0.7) gave 0.140996132086), while promotion still
# counts it as the default dtype
import torch
d = torch.float64
x = torch.tensor([1.540996108244, -0.293428905761, 2.5], dtype=d, requires_grad=True)
for name, f in [("fmod", lambda t: torch.fmod(t, 0.7)), ("fmod_m", lambda t: t.fmod(0.3)), ("rtruediv", lambda t: 0.7 / t),
                ("rsub", lambda t: 0.7 - t), ("where", lambda t: torch.where(t > 0, t, 0.1))]:
    y = f(x)
    g, = torch.autograd.grad(y.sum(), x)
    print(name, y.dtype, [round(v, 13) for v in y.tolist()], [round(v, 13) for v in g.tolist()])
print(torch.fmod(torch.tensor([3, 5]), 0.7).dtype, torch.fmod(torch.tensor([3.0, 5.0]), 0.7).dtype)
print(torch.fmod(torch.tensor([3.0, 5.0], dtype=torch.float16), 0.7), torch.fmod(torch.tensor([3, 5]), 2))
print(torch.fmod(torch.tensor([1.5409961, 5.0]), 0.7).tolist(), (0.7 / torch.tensor([3.0])).tolist())
