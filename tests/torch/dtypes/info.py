# torch.finfo / torch.iinfo and torch.set_default_dtype / get_default_dtype.
import torch

for d in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
    fi = torch.finfo(d)
    print(d, fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.smallest_normal, fi.resolution, fi.dtype)
print(torch.finfo().dtype, torch.finfo(torch.double).eps)
for d in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
    ii = torch.iinfo(d)
    print(d, ii.bits, ii.max, ii.min, ii.dtype)
try:
    torch.iinfo(torch.float32)
except TypeError as e:
    print("TypeError", e)
print(torch.get_default_dtype())
torch.set_default_dtype(torch.float64)
print(torch.get_default_dtype(), torch.tensor([1.5]).dtype, torch.zeros(2).dtype, torch.arange(3.0).dtype)
print(torch.tensor([1, 2]).dtype, (torch.tensor([1, 2]) / 2).dtype, torch.tensor([1, 2]) * 0.1)
print(torch.ones(2).sum(), torch.randn(2).dtype, torch.nn.Linear(2, 2).weight.dtype)
torch.set_default_dtype(torch.float32)
print(torch.get_default_dtype(), torch.tensor([1.5]).dtype)
try:
    torch.set_default_dtype(torch.int64)
except TypeError as e:
    print("TypeError", e)
print(torch.is_floating_point(torch.ones(1, dtype=torch.float16)), torch.ones(1, dtype=torch.int8).is_floating_point())
print(torch.finfo(torch.float32), torch.iinfo(torch.int8))
print(torch.finfo(torch.float16), torch.finfo(torch.bfloat16) == torch.finfo(torch.bfloat16))
print(torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float16), torch.can_cast(torch.int8, torch.bool))
