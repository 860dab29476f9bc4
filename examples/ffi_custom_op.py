"""A custom tensor op written in C (examples/ffi_custom_op.c), loaded from a shared library and
used like a built-in op: checked against the same math in plain torch ops, differentiated by
its own backward kernel, and trained with.

usage: ember run examples/ffi_custom_op.py [path/to/libember_example_ops.so]
(meson builds the library as build/examples/libember_example_ops.so)"""
import sys
import torch

lib = sys.argv[1] if len(sys.argv) > 1 else "build/examples/libember_example_ops.so"
torch.ops.load_library(lib)
op = torch.ops.ex.bias_leaky_relu
print("loaded", op, "--", op._schema)


def reference(x, bias, slope):
    z = x + bias
    return torch.where(z > 0, z, slope * z)


# 1. the op against the same computation in torch ops, values and gradients
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
x2 = x.detach().clone().requires_grad_(True)
b2 = b.detach().clone().requires_grad_(True)
y = op(x, b, slope=0.1)
y_ref = reference(x2, b2, 0.1)
print("forward matches:", torch.allclose(y, y_ref), "| grad_fn:", y.grad_fn.name())
assert torch.allclose(y, y_ref)
w = torch.randn(4, 3)
(y * w).sum().backward()
(y_ref * w).sum().backward()
print("grad x matches:", torch.allclose(x.grad, x2.grad), "| grad bias matches:", torch.allclose(b.grad, b2.grad))
assert torch.allclose(x.grad, x2.grad) and torch.allclose(b.grad, b2.grad)

# 2. shape errors come from the op's meta function, before any kernel runs
try:
    op(x, torch.zeros(4))
except RuntimeError as e:
    print("error:", e)

# 3. train a two-layer network whose hidden activation is the custom op
torch.manual_seed(1)
inputs = torch.randn(64, 2)
targets = (inputs[:, :1] * inputs[:, 1:]).tanh()          # something a line cannot fit
w1 = (torch.randn(2, 16) * 0.5).requires_grad_(True)
b1 = torch.zeros(16, requires_grad=True)
w2 = (torch.randn(16, 1) * 0.25).requires_grad_(True)
params = [w1, b1, w2]
lr = 0.1
for step in range(301):
    hidden = op(inputs @ w1, b1, 0.05)
    loss = ((hidden @ w2 - targets) ** 2).mean()
    for p in params:
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
    if step % 60 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")
print("trained:", loss.item() < 0.05)
assert loss.item() < 0.05, "the network did not learn"
