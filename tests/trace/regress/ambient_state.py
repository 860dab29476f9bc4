# A function called under different ambient states: CPU autocast, no_grad / inference_mode.
# Compiled, it kept what it was traced with: autocast's bfloat16 matmul came out float32 (no
# guard on the autocast state), and `y.requires_grad` read inside a no_grad block was True (the
# traced op's requires_grad ignored grad mode).
import torch

torch.manual_seed(0)
w = torch.randn(4, 4)
x = torch.randn(2, 4)
xr = torch.randn(3, requires_grad=True)


def mixed(t):
    h = t @ w
    return h.dtype, (t + 1).dtype, tuple(h.shape)


def flags(t):
    y = t * 2
    z = y.exp()
    return y.requires_grad, z.requires_grad, torch.is_grad_enabled(), torch.is_inference_mode_enabled()


print(mixed(x))
with torch.autocast("cpu", dtype=torch.bfloat16):
    print(mixed(x))
    with torch.autocast("cpu", enabled=False):
        print(mixed(x))
print(mixed(x))
print(flags(xr))
with torch.no_grad():
    print(flags(xr))
    with torch.enable_grad():
        print(flags(xr))
with torch.inference_mode():
    print(flags(xr))
print(flags(xr))
