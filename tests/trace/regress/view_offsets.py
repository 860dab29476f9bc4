# Regression: as_strided on a view input ignored the view's storage offset in compiled code
# (issue 14, defect 5): the binding recorded the offset the fake twin had (0) as an absolute
# storage offset.  Without storage_offset, as_strided keeps the input's own; fakes have the real
# input's offset, and reading it (storage_offset()) guards it, so a view at another offset
# recompiles.
import torch

big = torch.arange(12).float()
x = big[6:]
f = torch.compile(lambda x: x.as_strided((2, 2), (3, 1)) * 1.0)
print(f(x).tolist())
print(f(big[3:9]).tolist())
print(f(big[:6]).tolist())
print(x.as_strided((2, 2), (3, 1)).tolist())


@torch.compile
def explicit(x):
    return torch.as_strided(x, (3,), (2,), 1) + x.as_strided((3,), (1,), 4)


print(explicit(big[2:]).tolist(), explicit(big).tolist())


@torch.compile
def offset_read(x):
    return x * x.storage_offset(), x[1:].storage_offset()


for start in (0, 2, 5):
    y, off = offset_read(big[start:start + 4])
    print(start, y.tolist(), off)


@torch.compile
def grad_through_view(w):
    v = w[2:]
    return (v.as_strided((2, 2), (1, 1)) * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum()


w = torch.arange(6).float().requires_grad_()
grad_through_view(w).backward()
print(w.grad.tolist())

try:
    big.as_strided((2,), (1,), -1)
except RuntimeError as e:
    print("RuntimeError:", e)
