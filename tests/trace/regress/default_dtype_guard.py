# torch.set_default_dtype between calls of a compiled function that makes tensors from Python
# floats or with factories: the compiled code must follow the new default as eager does (it kept
# float32: no guard on the default dtype).
import torch


def make(n):
    a = torch.zeros(n)
    b = torch.tensor([0.5, 1.5])
    c = torch.arange(0.0, 1.0, 0.5)
    return a.dtype, b.dtype, c.dtype, (torch.ones(2, dtype=torch.int64) * 0.5).dtype


for dt in (torch.float32, torch.float64, torch.float32, torch.float64):
    torch.set_default_dtype(dt)
    print(make(3))
torch.set_default_dtype(torch.float32)
print(make(3))
