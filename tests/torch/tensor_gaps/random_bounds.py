# randint / random_ check both ends against the dtype's range with PyTorch's message (uint8 and
# friends wrapped silently before); torch.norm refuses dtype= for 'fro' and 'nuc' as 1.13 does
import torch
for dt, lo, hi in ((torch.uint8, 0, 1000), (torch.uint8, -1, 5), (torch.int8, 0, 200), (torch.int16, 0, 40000), (torch.int32, 0, 2**32), (torch.bool, 0, 3), (torch.float16, 0, 70000), (torch.uint8, 0, 256), (torch.int8, -128, 128)):
    try:
        torch.manual_seed(0)
        print(dt, torch.randint(lo, hi, (4,), dtype=dt).tolist())
    except RuntimeError as e:
        print(dt, "RuntimeError:", e)
    try:
        print(torch.zeros(3, dtype=dt).random_(lo, hi).dtype)
    except RuntimeError as e:
        print(dt, "random_ RuntimeError:", e)
for dt in (torch.int32, torch.int64, torch.int16, torch.uint8, torch.float64):
    torch.manual_seed(0)
    print(dt, torch.randint(0, 5, (6,), dtype=dt).tolist(), torch.randint(3, 100, (4,), dtype=dt).tolist())
x = torch.tensor([[1.5, 2.25], [3.0, 4.5]])
for kw in [dict(dtype=torch.float64), dict(p="fro", dim=(0, 1), dtype=torch.float64), dict(p="fro", dim=1, dtype=torch.float64), dict(p=2, dtype=torch.float64), dict(p="nuc", dtype=torch.float64), dict(p=1, dim=0, dtype=torch.float64)]:
    try:
        r = torch.norm(x, **kw)
        print(kw, r.dtype, r)
    except Exception as e:
        print(kw, type(e).__name__, e)
