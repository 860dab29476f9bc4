# dtype objects, aliases, inference, promotion and conversions between float32, int64 and bool.
import torch

print(torch.float32, torch.float, torch.int64, torch.long, torch.bool)
print(torch.float is torch.float32, torch.long is torch.int64, torch.float32 == torch.int64)
print(torch.float64, torch.double, torch.int32, torch.int, torch.float16, torch.half, torch.int16, torch.uint8)
print(torch.double is torch.float64, torch.int is torch.int32, torch.float64 == torch.float32)
print(type(torch.float32).__name__, isinstance(torch.int64, torch.dtype))
for d in (torch.float32, torch.int64, torch.bool, torch.float64, torch.int32, torch.uint8):
    print(d, d.is_floating_point, d.is_signed, d.is_complex)
print({torch.float32: "f", torch.int64: "i"}[torch.float], sorted([str(torch.bool), str(torch.float32)]))


def dt(t):
    return str(t.dtype).replace("torch.", "")


f = torch.tensor([1.5, 2.5])
i = torch.tensor([1, 2])
b = torch.tensor([True, False])
print(dt(f), dt(i), dt(b), dt(torch.tensor(1)), dt(torch.tensor(1.0)), dt(torch.tensor(False)))
print(dt(f + i), dt(i + f), dt(i + b), dt(b + b), dt(f * b), dt(i * 2), dt(i * 2.0), dt(b * 2), dt(b * 2.5))
print(dt(i / i), dt(i / 2), dt(i // 2), dt(i ** 2), dt(i ** 0.5), dt(b & b), dt(i > 1), dt(f == i))
print(dt(i.sum()), dt(b.sum()), dt(f.sum()), dt(b.long().sum()), dt(i.max()), dt(b.any()))
print(dt(i.argmax()), dt(f.argmax()), dt(f.mean()), dt(i.float().mean()), dt(torch.where(b, i, f)))
print(dt(torch.arange(3)), dt(torch.arange(3.0)), dt(torch.arange(0, 1, 0.5)), dt(torch.full((1,), 2)))
print(dt(torch.full((1,), True)), dt(torch.full((1,), 2.0)), dt(torch.zeros(1)), dt(torch.ones(1, dtype=torch.long)))
print(dt(torch.zeros_like(i)), dt(torch.ones_like(b)), dt(torch.rand(1)), dt(torch.randint(0, 2, (2,))))
print(dt(torch.cat([i, i])), dt(i.clone()), dt(f.to(torch.int64)), dt(i.to(torch.float32)), dt(f.to(i)))
print(dt(i.type(torch.float32)), i.type(torch.float32).tolist(), f.long().tolist(), (-f).long().tolist())
print(torch.tensor([0.0, -1.5, 2.0]).bool().tolist(), torch.tensor([0, 3]).bool().tolist(), b.float().tolist())
print(f.dtype == torch.float32, i.dtype != torch.float32, i.dtype in (torch.int64, torch.long))
print(torch.tensor([1, 2], dtype=torch.bool).tolist(), torch.tensor([0.7, 1.2], dtype=torch.int64).tolist())
print(torch.tensor([1, 2], dtype=torch.float).dtype, torch.tensor([1, 2], dtype=torch.long).dtype)
print(torch.tensor([3], dtype=int).dtype, torch.tensor([1], dtype=bool).dtype)
s = i.sum(dtype=torch.float32)
print(dt(s), s.item(), f.softmax(0, dtype=torch.float32).dtype)
try:
    i.mean()
except RuntimeError as e:
    print("RuntimeError", e)
print(f.is_floating_point(), i.is_floating_point(), b.is_floating_point())
