# torch.linspace gives PyTorch's bits: ATen's CPU kernel builds whole runs of two vectors (8
# floats / 4 doubles / 32 bytes of integers), each vector from a base computed from the start or
# the end with one fused multiply-add, its lanes base + k * step; the remaining elements one by
# one.  Integers compute in double and truncate.
import torch

torch.manual_seed(5)


def choice(xs):
    return xs[int(torch.randint(0, len(xs), ()))]


def uniform(a, b):
    return a + (b - a) * float(torch.rand(()))


for trial in range(60):
    n = choice([2, 3, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 50, 63, 64, 65, 100, 129])
    a = uniform(-10, 10)
    b = uniform(-10, 10)
    dt = choice([torch.float32, torch.float64])
    print(trial, n, dt, " ".join(v.hex() for v in torch.linspace(a, b, n, dtype=dt).double().tolist()))
for trial in range(30):
    n = choice([2, 3, 5, 8, 9, 16, 17, 20, 33, 40, 64, 65, 100])
    a = int(torch.randint(-50, 51, ()))
    b = int(torch.randint(-50, 51, ()))
    dt = choice([torch.int64, torch.int32, torch.int16, torch.int8])
    print(trial, n, dt, torch.linspace(a, b, n, dtype=dt).tolist())
print(torch.linspace(-1, 1, 16), torch.linspace(0, 10, 100)[::9])
print(torch.logspace(0, 2, 17), torch.logspace(-1, 1, 33, base=2)[::4])
