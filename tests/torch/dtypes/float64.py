# float64 end to end: creation, printing, promotion, reductions, matmul, autograd, Module.double().
import torch

x = torch.tensor([1.0, 2.5, -3.25], dtype=torch.float64)
print(x, x.dtype, x.element_size())
print(torch.tensor([0.1, 1e-10, 123456789.123456789], dtype=torch.double))
print(x * 0.1, x / 3)
print(torch.arange(4, dtype=torch.float64) / 7)
print(torch.zeros(2, 2, dtype=float), torch.ones(3).double())
f = torch.tensor([1.0, 2.0, 3.0])
print((f + x).dtype, (x + 1).dtype, (x + torch.tensor(2.0)).dtype, (f + torch.tensor(2.0, dtype=torch.float64)).dtype)
i = torch.tensor([1, 2, 3])
print((i * x).dtype, (i + torch.tensor(1.5, dtype=torch.float64)).dtype, (i / 2).dtype)
print(torch.promote_types(torch.float32, torch.float64), torch.result_type(f, 1.0), torch.result_type(i, x))
print(x.sum(), x.mean(), x.prod(), x.max(), x.min(), x.std(), x.var())
print(x.exp(), x.abs().log(), x.sin(), torch.sqrt(x.abs()), x.tanh(), torch.sigmoid(x))
m = torch.arange(6, dtype=torch.float64).reshape(2, 3) / 3
print(m @ m.t(), torch.mm(m, m.t()).dtype)
print(m.softmax(-1), m.log_softmax(1))
print(x.float(), x.long(), x.to(torch.float32).dtype, f.double().dtype, x.tolist(), x[1].item())
print(torch.tensor(1 / 3, dtype=torch.float64).item(), float(torch.tensor(0.1, dtype=torch.float64)))
w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.float64, requires_grad=True)
v = torch.tensor([1.0, 3.0], dtype=torch.float64, requires_grad=True)
y = (w @ v).tanh().pow(2).sum() + (w * w).exp().mean()
y.backward()
print(y, w.grad, v.grad, w.grad.dtype)
lin = torch.nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.1, 0.5, 0.7]]))
    lin.bias.fill_(0.5)
lin.double()
print(lin.weight.dtype, lin.bias.dtype)
out = lin(torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64))
print(out, out.dtype)
out.sum().backward()
print(lin.weight.grad)
try:
    lin(torch.tensor([[1.0, 2.0, 3.0]]))
except RuntimeError as e:
    print("RuntimeError", e)
print(lin.float().weight.dtype, lin.to(torch.float64).bias.dtype)
try:
    lin.to(torch.int64)
except TypeError as e:
    print("TypeError", e)
