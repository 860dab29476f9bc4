# cumsum and cumprod of float32 and float64 along the last dim of 5, 8 and 9 lines (Ember's
# kernel advances four lines together, then the rest one by one) and along an inner dim: every
# element printed with its full bits, so a changed order of operations in any line shows.
import torch

torch.manual_seed(3)
for shape, dim in [((9, 40), 1), ((8, 5), -1), ((5, 3, 7), 2), ((5, 3, 7), 1), ((4, 6), 0), ((1, 12), 1)]:
    for dt in (torch.float32, torch.float64):
        x = torch.rand(shape, dtype=dt) * 1.5 + 0.25
        s = x.cumsum(dim)
        p = x.cumprod(dim)
        print(shape, dim, dt)
        print("  ", " ".join(v.hex() for v in s.double().flatten().tolist()))
        print("  ", " ".join(v.hex() for v in p.double().flatten().tolist()))
