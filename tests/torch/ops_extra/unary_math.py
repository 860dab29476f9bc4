import torch

# PyTorch's CPU kernels run most of these through Sleef's vectorized functions, which differ from
# libm's correctly-rounded-or-1-ulp results by one ulp on some elements (expm1(4.) in float32,
# log1p(2.) in float64): forward values are printed to 7 (float32) / 14 (float64) significant
# digits; the gradients, which do not go through those functions, are printed exactly.
def r(t):
    d = 7 if t.dtype == torch.float32 else 14
    return [float("%.*g" % (d, v)) for v in t.tolist()]

ops = ["log1p", "expm1", "exp2", "log2", "log10", "tan", "asin", "acos", "atan",
       "sinh", "cosh", "asinh", "acosh", "atanh"]
vals = {
    "log1p": [-1.0, -0.5, 0.0, 1e-8, 2.0],
    "expm1": [-3.0, 0.0, 1e-8, 0.5, 4.0],
    "exp2": [-3.0, 0.0, 0.5, 10.0],
    "log2": [0.0, 0.25, 3.0, -1.0],
    "log10": [0.0, 0.1, 1000.0, -1.0],
    "tan": [-1.0, 0.0, 0.5, 1.2],
    "asin": [-1.0, -0.5, 0.0, 0.3, 2.0],
    "acos": [-1.0, -0.5, 0.0, 0.3, 2.0],
    "atan": [-10.0, 0.0, 0.5, 3.0],
    "sinh": [-2.0, 0.0, 0.5, 3.0],
    "cosh": [-2.0, 0.0, 0.5, 3.0],
    "asinh": [-2.0, 0.0, 0.5, 3.0],
    "acosh": [0.5, 1.0, 1.5, 3.0],
    "atanh": [-1.0, -0.5, 0.0, 0.3, 2.0],
}
for dt in (torch.float32, torch.float64):
    for name in ops:
        x = torch.tensor(vals[name], dtype=dt)
        y = getattr(torch, name)(x)
        print(name, dt, r(y))
        print(name, "method", r(getattr(x, name)()))
        z = x.clone()
        getattr(z, name + "_")()
        print(name, "inplace", r(z))
    for name in ops:
        src = {"acosh": [1.25, 2.0, 3.0], "asin": [-0.5, 0.25, 0.75], "acos": [-0.5, 0.25, 0.75],
               "atanh": [-0.5, 0.25, 0.75], "log1p": [-0.5, 0.0, 2.0], "log2": [0.5, 1.0, 4.0],
               "log10": [0.5, 1.0, 4.0]}.get(name, [-1.5, 0.0, 0.75])
        x = torch.tensor(src, dtype=dt, requires_grad=True)
        y = getattr(torch, name)(x)
        print(name, "grad_fn", type(y.grad_fn).__name__ if False else y.grad_fn.name())
        y.backward(torch.tensor([1.0, 2.0, 0.5], dtype=dt))
        print(name, "grad", x.grad.tolist())

print(torch.arcsin(torch.tensor([0.5])).tolist(), torch.tensor([0.5]).arctanh().tolist())
print(torch.log1p(torch.tensor([0, 1, 3])).tolist(), torch.log1p(torch.tensor([0, 1, 3])).dtype)
print(torch.special.log1p(torch.tensor([0.5])).tolist(), torch.special.expm1(torch.tensor([0.5])).tolist(),
      torch.special.exp2(torch.tensor([0.5])).tolist())
print(torch.log1p(torch.tensor([float("inf"), float("-inf"), float("nan")])).tolist())
print(torch.expm1(torch.tensor([float("inf"), float("-inf"), float("nan")])).tolist())
print(torch.tan(torch.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=torch.float64)))
print(r(torch.expm1(torch.tensor([True, False]))))
try:
    torch.tensor([1, 2]).log1p_()
except RuntimeError as e:
    print("RuntimeError", e)
