# Pointwise activations' values and gradients give PyTorch's bits (sigmoid's backward
# in ATen's order), and so do addcmul and lerp.
import torch, hashlib
torch.manual_seed(0)
H = lambda t: hashlib.sha1(' '.join(v.hex() for v in t.double().flatten().tolist()).encode()).hexdigest()[:10]
for fn in ("sigmoid", "relu", "elu", "leaky_relu", "exp", "log", "sqrt", "sin", "reciprocal", "pow2", "mul", "erf", "hardtanh", "abs", "square"):
    x = (torch.randn(1000) + (3 if fn in ("log", "sqrt", "rsqrt") else 0)).abs().requires_grad_(True) if fn in ("log", "sqrt", "rsqrt") else torch.randn(1000, requires_grad=True)
    g = torch.randn(1000)
    import torch.nn.functional as F
    f = {"tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": F.relu, "gelu": F.gelu, "silu": F.silu, "elu": F.elu, "softplus": F.softplus, "leaky_relu": F.leaky_relu, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "sin": torch.sin, "reciprocal": torch.reciprocal, "pow2": lambda t: t ** 2, "mul": lambda t: t * t, "div": lambda t: 1.5 / t, "erf": torch.erf, "hardtanh": F.hardtanh, "mish": F.mish, "logsigmoid": F.logsigmoid, "abs": torch.abs, "square": torch.square}[fn]
    y = f(x)
    y.backward(g)
    print(fn, H(y), H(x.grad))
a = torch.randn(1000)
b = torch.randn(1000)
c = torch.randn(1000).abs() + 0.1
print("addcmul", H(a.addcmul(b, c, value=0.001)), H(torch.addcmul(a, b, c)), H(a.clone().addcmul_(b, b, value=0.001)))
print("lerp", H(a.lerp(b, 0.1)), H(torch.lerp(a, b, 0.7)), H(torch.lerp(a, b, c / 10)), H(a.double().lerp(b.double(), 0.3)))
