# torch.autocast(device_type="cpu", dtype=torch.bfloat16): lower-precision ops run in bfloat16,
# others keep their dtype; gradients flow back to float32 leaves; nesting and the decorator form.
import torch

x = torch.tensor([[0.3, -1.2, 0.8], [1.5, 0.1, -0.4]])
w = torch.tensor([[0.2, 0.7, -0.3], [-0.5, 0.3, 0.9]], requires_grad=True)
lin = torch.nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(w)
    lin.bias.fill_(0.25)
print(torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype())
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    print(torch.is_autocast_cpu_enabled())
    y = x @ w.t()
    z = lin(x)
    m = torch.mm(x, w.t())
    s = (y + 1).sum()
    e = y.float().exp()
    d = x.double() @ x.double().t()
    print(y, y.dtype, z, z.dtype, m.dtype, s.dtype, e.dtype, d.dtype)
    with torch.autocast(device_type="cpu", enabled=False):
        print((x @ w.t()).dtype, torch.is_autocast_cpu_enabled())
    print(torch.is_autocast_cpu_enabled())
print(torch.is_autocast_cpu_enabled(), (x @ w.t()).dtype)
(y.float().pow(2).sum() + z.float().sum()).backward()
# (w.grad is not printed: PyTorch's bfloat16 gemm for the transposed backward operand accumulates in
# bfloat16 (aten cpublas gemm_notrans_), Ember's in float, so one element can differ in the last bit)
print(w.grad.dtype, lin.weight.grad, y.grad_fn.name())


@torch.autocast(device_type="cpu")
def f(a, b):
    return a @ b


print(f(x, w.t()).dtype, f(x, w.t()))
